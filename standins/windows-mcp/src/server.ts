// The HTTP side, in the order Windows-MCP 0.8.2's Starlette middleware runs: the Host check
// (TrustedHostMiddleware, from the bind address), then the bearer key (AuthKeyMiddleware), then
// FastMCP's Streamable HTTP endpoint at /mcp (and /mcp/). One MCP Server per session.
// A debug API at /vmhub-standin/* (same key; exempt from the fault switches) lets tests that
// run the stand-in in a container read its state and set faults.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Desktop } from './desktop.ts';
import { VERSION_INFO } from './schemas.ts';
import { ToolError, sleep, type ToolFn } from './tool-kit.ts';
import { TOOLS_058 } from './tools-058.ts';
import { TOOLS_062 } from './tools-062.ts';
import { TOOLS_082 } from './tools-082.ts';
import { type Faults, type StandinOptions, type StandinVersion, VERSION_ALIASES } from './types.ts';
import { validateArgs } from './validate.ts';

export interface Standin {
  /** http://host:port/mcp/ */
  url: string;
  host: string;
  port: number;
  version: StandinVersion;
  /** The simulated desktop (read it, or change it, in-process). */
  state: Desktop;
  /** Mutable: change faults between calls. */
  faults: Faults;
  close(): Promise<void>;
}

const isLoopback = (h: string) => h.toLowerCase() === 'localhost' || /^127\./.test(h) || h === '::1';

/** The allow-list Windows-MCP computes from --host (None: no check). */
export function allowedHostsFor(host: string, allowInsecureRemote = false): string[] | null {
  if (allowInsecureRemote) return null;
  if (isLoopback(host)) return ['localhost', '127.0.0.1', '[::1]'];
  if (host === '0.0.0.0' || host === '::' || host === '') return null;
  return [host];
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const s = Buffer.concat(chunks).toString('utf8');
  return s ? JSON.parse(s) : undefined;
}

export function stateJson(d: Desktop, version: string): Record<string, unknown> {
  return {
    version, screen: d.screen, pointer: d.pointer, textBox: d.textBox, clipboard: d.clipboard, home: d.home,
    windows: d.windows.map(({ restore: _r, ...w }) => w), focused: d.focusedWindow?.title ?? null,
    clicks: d.clicks, scrolls: d.scrolls, keys: d.keys, drags: d.drags, typed: d.typed, launched: d.launched,
    snapshots: d.snapshots, screenshots: d.screenshots, powershell: d.powershell, calls: d.calls,
    files: Object.fromEntries([...d.files].map(([p, b]) => [p, b.toString('base64')])),
  };
}

function toResult(out: Awaited<ReturnType<ToolFn>>, structured: boolean): CallToolResult {
  if (typeof out === 'string') return { content: [{ type: 'text', text: out }], ...(structured ? { structuredContent: { result: out } } : {}) };
  if (Array.isArray(out)) {
    return { content: out.map((c) => (typeof c === 'string' ? { type: 'text' as const, text: c } : { type: 'image' as const, data: c.png.toString('base64'), mimeType: 'image/png' })) };
  }
  return out;
}

export async function startStandin(opts: StandinOptions = {}): Promise<Standin> {
  const version = VERSION_ALIASES[opts.version ?? '0.8.2'];
  if (!version) throw new Error(`[windows-mcp-standin] unknown version '${opts.version}': use 0.5.8 (alias 0.5), 0.6.2 (0.6) or 0.8.2 (0.8)`);
  const info = VERSION_INFO[version];
  const host = opts.host ?? '127.0.0.1';
  if (version === '0.8.2' && !opts.authKey && !isLoopback(host) && !opts.allowInsecureRemote) {
    throw new Error(`Refusing to bind HTTP transport to '${host}' without authentication.`);
  }
  const d = new Desktop(opts.screen ?? { width: 2560, height: 1440 }, opts.home);
  const faults: Faults = opts.faults ?? {};
  const tools: Record<string, ToolFn> = { '0.5.8': TOOLS_058, '0.6.2': TOOLS_062, '0.8.2': TOOLS_082 }[version];
  const byName = new Map(info.tools.map((t) => [t.name, t]));
  const scale = Math.max(0.1, Math.min(1, opts.screenshotScale ?? 1));
  const computedHosts = allowedHostsFor(host, opts.allowInsecureRemote);

  const newServer = () => {
    const s = new Server({ name: 'windows-mcp', version: info.fastmcp }, { capabilities: { tools: { listChanged: true } }, instructions: info.instructions });
    s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: info.tools as never }));
    s.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
      const name = req.params.name;
      const args = (req.params.arguments ?? {}) as Record<string, unknown>;
      const def = byName.get(name);
      const fn = tools[name];
      if (!def || !fn) return { isError: true, content: [{ type: 'text', text: `Unknown tool: '${name}'` }] };
      d.calls.push({ tool: name, args });
      try {
        const problem = validateArgs(def, args);
        if (problem) throw new ToolError(problem);
        const slow = typeof faults.slowMs === 'number' ? faults.slowMs : faults.slowMs?.[name];
        if (slow) await sleep(slow, extra.signal);
        return toResult(await fn(args, { d, faults, signal: extra.signal, screenshotScale: scale }), def.outputSchema !== undefined);
      } catch (e) {
        if (extra.signal.aborted) throw e;
        if (e instanceof ToolError) return { isError: true, content: [{ type: 'text', text: `Error calling tool '${name}': ${e.message}` }] };
        throw e;
      }
    });
    return s;
  };

  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Set<Server>();

  const http = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://standin');
      const auth = req.headers.authorization ?? '';
      // debug API: the key (if any), no fault switches — so a test can always read state and undo faults
      if (url.pathname.startsWith('/vmhub-standin/')) {
        if (opts.authKey && auth !== `Bearer ${opts.authKey}`) return json(res, 401, { error: 'Invalid authentication token' });
        if (url.pathname === '/vmhub-standin/state') return json(res, 200, stateJson(d, version));
        if (url.pathname === '/vmhub-standin/faults') {
          if (req.method === 'POST') {
            const next = (await readBody(req)) as Faults;
            for (const k of Object.keys(faults) as (keyof Faults)[]) delete faults[k];
            Object.assign(faults, next);
            // as after a Windows-MCP restart: no desktop state until the next Snapshot
            if (next.snapshotFirst) d.lastSnapshot = null;
          }
          return json(res, 200, faults);
        }
        return json(res, 404, { error: 'unknown debug path' });
      }
      const allowed = faults.allowedHosts ?? computedHosts;
      const hostName = (req.headers.host ?? '').split(':')[0]; // Starlette: split on the first ':'
      if (allowed && !allowed.includes(hostName)) {
        res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
        return res.end('Invalid host header');
      }
      if (opts.authKey || faults.unauthorized) {
        if (!auth.startsWith('Bearer ')) return json(res, 401, { error: 'Missing or invalid Authorization header. Expected: Bearer <token>' }, { 'www-authenticate': 'Bearer' });
        if (faults.unauthorized || auth.slice(7) !== opts.authKey) return json(res, 401, { error: 'Invalid authentication token' }, { 'www-authenticate': 'Bearer' });
      }
      if (url.pathname !== '/mcp' && url.pathname !== '/mcp/') return json(res, 404, { error: 'Not Found' });
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!transport) {
        if (typeof sid === 'string' || !isInitializeRequest(body)) {
          return json(res, typeof sid === 'string' ? 404 : 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: typeof sid === 'string' ? 'Session not found' : 'Bad Request: Missing session ID' } });
        }
        const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID().replace(/-/g, ''), onsessioninitialized: (id) => void transports.set(id, t) });
        const s = newServer();
        servers.add(s);
        t.onclose = () => { if (t.sessionId) transports.delete(t.sessionId); servers.delete(s); };
        await s.connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) json(res, 500, { error: String(e instanceof Error ? e.message : e) });
      else res.end();
    }
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${urlHost}:${port}/mcp/`,
    host,
    port,
    version,
    state: d,
    faults,
    async close() {
      for (const s of servers) await s.close().catch(() => {});
      await new Promise<void>((resolve) => { http.close(() => resolve()); http.closeAllConnections?.(); });
    },
  };
}
