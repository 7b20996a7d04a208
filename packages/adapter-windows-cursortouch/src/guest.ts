/**
 * One MCP client per lease session: the official SDK's Client over Streamable HTTP to
 * Windows-MCP in the guest, reached through `lease.forward(port)` (a unix socket on the vmhub
 * host — or a 127.0.0.1 port under the template's `forward_tcp` — tunnelled to the guest port; the
 * request arrives with `Host: 127.0.0.1:<p>`, `<p>` the guest port (or the TCP forward's), which
 * Windows-MCP bound to the guest's loopback accepts). Opened on first use, `tools/list`
 * read once, closed by the session's dispose(). Every failure leaves here as a VmhubError:
 * 401 → CAPABILITY_UNAVAILABLE naming the key, a refused Host → CAPABILITY_UNAVAILABLE naming the
 * Host check, request timeouts and cancellations → TIMEOUT, Windows-MCP's own tool errors →
 * INVALID_REQUEST / NOT_FOUND / INTERNAL with its message kept.
 */
import { Client, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Agent } from 'node:http';
import { VmhubError, type AdapterContext, type LeaseContext } from '@vmhub/core';
import { cancelled, DOCS, keyRefused, noKey, winError } from './errors.ts';
import { agentFetch } from './http-fetch.ts';
import type { WindowsOptions } from './options.ts';
import { fit, ToolMap, type ListedTool, type Role } from './tool-map.ts';

/** What a tool answered: its text parts joined, and its images. */
export interface ToolReply {
  tool: string;
  text: string;
  images: { data: Buffer; mimeType: string }[];
}

export interface CallOptions {
  /** Bound for this call; default options.call_timeout_ms. */
  timeoutMs?: number;
  /** Take a Snapshot and retry once when Windows-MCP says its desktop state is empty. Default true. */
  snapshotFirst?: boolean;
}

interface Open {
  client: Client;
  transport: StreamableHTTPClientTransport;
  tools: ToolMap;
}

const DESKTOP_EMPTY = /Desktop state is empty/i;
// The token some releases raise, and the sentence the capture worker says (0.8 returns it as plain text).
const QUARANTINE = /SCREENSHOT_QUARANTINE|Screenshot is quarantined/i;

export class WindowsMcp {
  readonly #lease: LeaseContext;
  readonly #options: WindowsOptions;
  readonly #version: string;
  #key: string | undefined;
  #secretAsked: Promise<void> | undefined;
  #open: Promise<Open> | undefined;
  #closed = false;
  /** The session's sockets: destroyed at close(), so the lease's forward() listener is free at once. */
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 8 });

  constructor(lease: LeaseContext, options: WindowsOptions, version: string, env: NodeJS.ProcessEnv = process.env) {
    this.#lease = lease;
    this.#options = options;
    this.#version = version;
    const key = env[options.auth_key_env];
    this.#key = key === undefined || key === '' ? undefined : key;
  }

  /**
   * Whether the lease has a key at all (probe reports its absence without dialling): the lease's
   * own secret (`auth_key_secret`, made by the provider at create) wins over the host env var.
   */
  async hasKey(): Promise<boolean> {
    await this.#leaseKey();
    return this.#key !== undefined;
  }

  #leaseKey(): Promise<void> {
    const name = this.#options.auth_key_secret;
    this.#secretAsked ??= (async () => {
      if (!name || !this.#lease.secret) return;
      const value = await this.#lease.secret(name);
      if (value) this.#key = value;
    })();
    return this.#secretAsked;
  }

  get keyEnv(): string {
    return this.#options.auth_key_env;
  }

  /** The guest's tools (connects on first use). */
  async tools(ctx: AdapterContext): Promise<ToolMap> {
    return (await this.#connect(ctx)).tools;
  }

  /** The tool serving `role`, or CAPABILITY_UNAVAILABLE naming what was looked for. */
  async need(ctx: AdapterContext, role: Role, capability: string): Promise<ListedTool> {
    const tools = await this.tools(ctx);
    const tool = tools.tool(role);
    if (!tool) throw winError('CAPABILITY_UNAVAILABLE', `${capability} needs a Windows-MCP tool this guest does not offer: ${tools.missing(role)}`, { hint: `Use a Windows-MCP release that has it, or check its --tools / --exclude-tools settings (${DOCS}).`, details: { role } });
    return tool;
  }

  /** Call `tool` with the arguments it declares (others dropped). */
  async call(ctx: AdapterContext, tool: ListedTool, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolReply> {
    const reply = await this.#callOnce(ctx, tool, args, options);
    if (reply instanceof VmhubError) {
      if (reply.details?.windows_mcp_error !== 'DESKTOP_STATE_EMPTY' || options.snapshotFirst === false) throw reply;
      // Windows-MCP resolves labels (and, in some releases, more) against the last Snapshot held
      // by its process: take one, then try once more.
      const tools = await this.tools(ctx);
      const snap = tools.tool('snapshot');
      if (!snap) throw reply;
      await this.call(ctx, snap, { use_vision: false, use_ui_tree: true, use_annotation: false }, { snapshotFirst: false });
      const again = await this.#callOnce(ctx, tool, args, options);
      if (again instanceof VmhubError) throw again;
      return again;
    }
    return reply;
  }

  async #callOnce(ctx: AdapterContext, tool: ListedTool, args: Record<string, unknown>, options: CallOptions): Promise<ToolReply | VmhubError> {
    let result: Awaited<ReturnType<Client['callTool']>>;
    for (let attempt = 0; ; attempt++) {
      const open = this.#connect(ctx);
      const { client } = await open;
      try {
        result = await client.callTool({ name: tool.name, arguments: fit(tool, args) }, {
          signal: ctx.signal,
          timeout: options.timeoutMs ?? this.#options.call_timeout_ms,
        });
        break;
      } catch (err) {
        // Windows-MCP restarted (guest reboot, task restart) and forgot our MCP session: open a
        // new one and send the call once more.
        if (attempt === 0 && isLostSession(err) && !ctx.signal.aborted) {
          if (this.#open === open) this.#open = undefined;
          await client.close().catch(() => undefined);
          continue;
        }
        throw this.#mapError(ctx, err, `Windows-MCP ${tool.name}`);
      }
    }
    const reply = replyOf(tool.name, result as { content?: unknown; structuredContent?: unknown });
    const failure = toolFailure(tool.name, reply.text, result.isError === true);
    return failure ?? reply;
  }

  #connect(ctx: AdapterContext): Promise<Open> {
    if (this.#closed) throw winError('LEASE_EXPIRED', 'the session has ended');
    const open = this.#open ??= this.#leaseKey().then(() => {
      if (!this.#key) throw noKey(this.#options.auth_key_env);
      return this.#dial(ctx);
    });
    // A failed dial (the guest server still starting, a wrong key fixed later) is tried again by the next call.
    open.catch(() => { if (this.#open === open) this.#open = undefined; });
    return open;
  }

  async #dial(ctx: AdapterContext): Promise<Open> {
    const where = await this.#lease.forward(this.#options.port);
    // A unix-socket forward: the URL names the guest's own loopback port (the Host header).
    const url = new URL(where.path !== undefined ? `http://127.0.0.1:${this.#options.port}${this.#options.path}` : `http://${where.host}:${where.port}${this.#options.path}`);
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${this.#key}` } },
      fetch: agentFetch(this.#agent, this.#options.host_header, where.path),
    });
    const client = new Client({ name: 'vmhub-adapter-windows-cursortouch', version: this.#version });
    try {
      await client.connect(transport, { signal: ctx.signal, timeout: this.#options.call_timeout_ms });
      const listed: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { signal: ctx.signal, timeout: this.#options.call_timeout_ms });
        listed.push(...(page.tools as ListedTool[]));
        cursor = page.nextCursor;
      } while (cursor);
      return { client, transport, tools: new ToolMap(listed) };
    } catch (err) {
      await client.close().catch(() => undefined);
      throw this.#mapError(ctx, err, `connecting to Windows-MCP on guest port ${this.#options.port}`);
    }
  }

  #mapError(ctx: AdapterContext, err: unknown, what: string): VmhubError {
    if (VmhubError.is(err)) return err;
    if (ctx.signal.aborted) return cancelled(what, err);
    // The SDK v2 client without an auth provider: a 401 is an SdkHttpError (status 401); with one, UnauthorizedError.
    if (err instanceof UnauthorizedError) return keyRefused(this.#options.auth_key_env, err);
    const status = httpStatusOf(err);
    if (status !== undefined) {
      if (status === 401) return keyRefused(this.#options.auth_key_env, err);
      if (status === 421 || /invalid host|host header/i.test((err as Error).message)) {
        return winError('CAPABILITY_UNAVAILABLE', `${what}: Windows-MCP refused the request (HTTP ${status}: ${(err as Error).message.slice(0, 300)}); it checks the Host header, and vmhub sends "Host: 127.0.0.1:<port>", which only a Windows-MCP bound to the guest's loopback accepts`, {
          hint: `Start Windows-MCP with --host 127.0.0.1 in the golden (vmhub tunnels to the guest's loopback), or bind 0.0.0.0 with --auth-key and --ip-allowlist (${DOCS}).`,
          details: { status },
          cause: err,
        });
      }
      return winError('INTERNAL', `${what}: HTTP ${status}: ${(err as Error).message.slice(0, 500)}`, { cause: err });
    }
    if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) return winError('TIMEOUT', `${what} did not answer in time: ${err.message}`, { cause: err });
    if (err instanceof ProtocolError) {
      if (err.code === ProtocolErrorCode.InvalidParams) return winError('INVALID_REQUEST', `${what}: ${err.message}`, { cause: err });
      return winError('INTERNAL', `${what}: ${err.message}`, { cause: err });
    }
    const message = err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
    if (/fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|other side closed|terminated/i.test(message)) {
      return winError('CAPABILITY_UNAVAILABLE', `${what}: nothing answers on guest port ${this.#options.port} (${message})`, {
        retryable: true,
        hint: `Windows-MCP may still be starting (it runs at logon of the desktop user): retry in a few seconds; if it persists, check the golden's Windows-MCP service (${DOCS}).`,
        cause: err,
      });
    }
    return winError('INTERNAL', `${what}: ${message}`, { cause: err });
  }

  /** Close the client (and end the MCP session on the server). Never throws. */
  async close(): Promise<void> {
    this.#closed = true;
    const open = this.#open;
    this.#open = undefined;
    const o = await open?.catch(() => undefined);
    if (o) {
      await Promise.race([o.transport.terminateSession().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
      await o.client.close().catch(() => undefined);
    }
    this.#agent.destroy();
  }
}

/** The HTTP status of a failed POST/GET/DELETE (the SDK v2 client's SdkHttpError). */
function httpStatusOf(err: unknown): number | undefined {
  return err instanceof SdkHttpError ? err.status : undefined;
}

/** The server no longer knows our Mcp-Session-Id (404 per the Streamable HTTP spec; some servers say 400). */
function isLostSession(err: unknown): boolean {
  const status = httpStatusOf(err);
  return status === 404 || (status === 400 && /session/i.test((err as Error).message));
}

function replyOf(tool: string, result: { content?: unknown; structuredContent?: unknown }): ToolReply {
  const texts: string[] = [];
  const images: ToolReply['images'] = [];
  for (const part of Array.isArray(result.content) ? result.content : []) {
    const p = part as { type?: string; text?: string; data?: string; mimeType?: string };
    if (p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
    else if (p.type === 'image' && typeof p.data === 'string') images.push({ data: Buffer.from(p.data, 'base64'), mimeType: p.mimeType ?? 'image/png' });
  }
  const structured = result.structuredContent as { result?: unknown } | undefined;
  if (texts.length === 0 && typeof structured?.result === 'string') texts.push(structured.result);
  return { tool, text: texts.join('\n'), images };
}

/** A Windows-MCP failure, from an error result or from the text some tools return instead. */
export function toolFailure(tool: string, text: string, isError: boolean): VmhubError | undefined {
  const said = text.trim().slice(0, 2000);
  if (QUARANTINE.test(text)) {
    return winError('INTERNAL', `Windows-MCP ${tool} quarantined the screenshot: ${said}`, {
      retryable: true,
      hint: 'Its capture backend may not capture this desktop now (a locked or switching desktop, a secure desktop prompt, isolated graphics workers): retry in a moment; other tools keep working.',
      details: { windows_mcp_error: 'SCREENSHOT_QUARANTINE' },
    });
  }
  if (DESKTOP_EMPTY.test(text)) {
    return winError('INTERNAL', `Windows-MCP ${tool} has no desktop state (a Snapshot was taken and the call tried again where possible): ${said}`, {
      retryable: true,
      hint: 'Windows-MCP could not capture the desktop state: retry; if it persists, check that the desktop session is unlocked.',
      details: { windows_mcp_error: 'DESKTOP_STATE_EMPTY' },
    });
  }
  if (!isError) return undefined;
  const message = `Windows-MCP ${tool} failed: ${said}`;
  if (/not found|does not exist|no such|cannot find|could not find/i.test(text)) return winError('NOT_FOUND', message);
  if (/must|required|invalid|either .* or|expected|not supported|only appl|unknown|out of (bounds|range)|validation/i.test(text)) return winError('INVALID_REQUEST', message);
  return winError('INTERNAL', message);
}
