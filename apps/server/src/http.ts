/**
 * MCP over Streamable HTTP at /mcp, for agents on other hosts. Safe defaults: binds 127.0.0.1;
 * refuses to start without a bearer token unless it binds loopback AND the operator opted out
 * explicitly; requests carrying an Origin header that is not allowed get 403 (DNS rebinding);
 * the token is compared in constant time. Each MCP session gets its own McpServer over the one
 * shared runtime.
 */
import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { VmhubError } from '@vmhub/core';
import { log } from './log.ts';
import type { VmhubHub } from './server.ts';

const MAX_BODY_BYTES = 96 * 1024 * 1024;

export interface HttpOptions {
  host: string;
  port: number;
  token: string | undefined;
  allowNoAuth: boolean;
  allowedOrigins: readonly string[];
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

export async function serveHttp(hub: VmhubHub, options: HttpOptions): Promise<{ server: Server; url: string }> {
  if (!options.token && !(options.allowNoAuth && isLoopback(options.host))) {
    throw new VmhubError('INVALID_REQUEST', isLoopback(options.host)
      ? `[vmhub] HTTP needs a bearer token: set ${'$'}VMHUB_HTTP_TOKEN (http.token_env), or opt out on loopback with VMHUB_HTTP_ALLOW_NO_AUTH=1`
      : `[vmhub] refusing to serve HTTP on ${options.host} without a bearer token: set ${'$'}VMHUB_HTTP_TOKEN (http.token_env)`);
  }
  const expected = options.token ? createHash('sha256').update(`Bearer ${options.token}`).digest() : undefined;
  const transports = new Map<string, StreamableHTTPServerTransport>();

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      log('warn', 'http request failed', { error: err.message });
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://vmhub');
    if (url.pathname !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp');
    const origin = req.headers.origin;
    if (origin !== undefined && !options.allowedOrigins.includes(origin)) return reply(res, 403, `origin ${origin} is not allowed (http.allowed_origins)`);
    if (expected) {
      const got = createHash('sha256').update(String(req.headers.authorization ?? '')).digest();
      if (!timingSafeEqual(got, expected)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="vmhub"');
        return reply(res, 401, 'missing or wrong bearer token');
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (sessionId !== undefined && !existing) return reply(res, 404, 'unknown or expired MCP session: initialize again');
    if (!existing && req.method !== 'POST') return reply(res, 400, 'no MCP session: POST an initialize request first');
    let body: unknown;
    try {
      body = req.method === 'POST' ? await readJson(req) : undefined;
    } catch (err) {
      return reply(res, 400, (err as Error).message);
    }
    if (existing) return existing.handleRequest(req, res, body);

    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => { transports.set(id, transport); },
    });
    transport.onclose = () => { if (transport.sessionId) transports.delete(transport.sessionId); };
    const { mcp } = hub.session();
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as { port: number };
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${address.port}/mcp`;
  log('info', 'vmhub MCP over HTTP', { url, auth: expected ? 'bearer' : 'none (loopback opt-out)' });
  return { server, url };
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks, size).toString('utf8'));
  } catch {
    throw new Error('request body is not valid JSON');
  }
}
