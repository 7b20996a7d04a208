/**
 * MCP over Streamable HTTP at /mcp, for agents on other hosts. Safe defaults: binds 127.0.0.1;
 * refuses to start without a bearer token unless it binds loopback AND the operator opted out
 * explicitly; requests carrying an Origin header that is not allowed get 403 (DNS rebinding).
 * Each token names a principal (http/auth.ts); each MCP session gets its own McpServer over the
 * one shared runtime, is bound to the credential that opened it, and is closed when idle, when
 * its credential is revoked (setTokens, on SIGHUP), or by its client (DELETE).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { VmhubError } from '@vmhub/core';
import { log } from './log.ts';
import type { VmhubHub } from './server.ts';
import { Credentials, DEFAULT_PRINCIPAL, type Credential, type PrincipalToken } from './http/auth.ts';
import { readBody } from './http/body.ts';
import { ANONYMOUS_PRINCIPAL, principalAuthInfo } from './http/principal.ts';
import { HttpSessions, type HttpSession } from './http/sessions.ts';

export { bearerToken, principalTokens, DEFAULT_PRINCIPAL, type PrincipalToken } from './http/auth.ts';
export { ANONYMOUS_PRINCIPAL, localPrincipal, principalOf } from './http/principal.ts';

/** Largest request body kept (a base64 file of files.max_bytes fits); larger ones get 413. */
const MAX_BODY_BYTES = 96 * 1024 * 1024;

export interface HttpOptions {
  host: string;
  port: number;
  /** Token of the principal "default" ($VMHUB_HTTP_TOKEN). */
  token?: string | undefined;
  /** Named principals' tokens (http.tokens, read from their env vars). */
  tokens?: readonly PrincipalToken[];
  allowNoAuth: boolean;
  allowedOrigins: readonly string[];
  /** http.session_idle_seconds (default 1800). */
  sessionIdleSeconds?: number;
  /** http.max_sessions (default 100). */
  maxSessions?: number;
}

export interface HttpServer {
  server: Server;
  url: string;
  /** Open MCP sessions now. */
  sessions(): number;
  /** Sessions closed for idleness since start. */
  reclaimed(): number;
  /** Replace the accepted tokens; sessions of credentials no longer accepted are closed. */
  setTokens(tokens: readonly PrincipalToken[]): { principals: string[]; closed: number };
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

export async function serveHttp(hub: VmhubHub, options: HttpOptions): Promise<HttpServer> {
  const initial = [...(options.token ? [{ principal: DEFAULT_PRINCIPAL, token: options.token }] : []), ...(options.tokens ?? [])];
  if (initial.length === 0 && !(options.allowNoAuth && isLoopback(options.host))) {
    throw new VmhubError('INVALID_REQUEST', isLoopback(options.host)
      ? `[vmhub] HTTP needs a bearer token: set ${'$'}VMHUB_HTTP_TOKEN (http.token_env) or http.tokens, or opt out on loopback with VMHUB_HTTP_ALLOW_NO_AUTH=1`
      : `[vmhub] refusing to serve HTTP on ${options.host} without a bearer token: set ${'$'}VMHUB_HTTP_TOKEN (http.token_env) or http.tokens`);
  }
  let credentials = new Credentials(initial);
  // The no-auth opt-out holds only while no token was ever configured: revoking every token
  // leaves a server that refuses everyone, never an open one.
  let open = initial.length === 0;
  const idleSeconds = options.sessionIdleSeconds ?? 1800;
  const sessions = new HttpSessions({ idleMs: idleSeconds * 1000, max: options.maxSessions ?? 100 });

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      log('warn', 'http request failed', { error: err.message });
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });

  async function handle(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://vmhub');
    if (url.pathname !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp');
    const origin = req.headers.origin;
    if (origin !== undefined && !options.allowedOrigins.includes(origin)) return reply(res, 403, `origin ${origin} is not allowed (http.allowed_origins)`);
    let credential: Credential | undefined;
    if (!open) {
      credential = credentials.match(req.headers.authorization);
      if (!credential) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="vmhub"');
        return reply(res, 401, 'missing, wrong or revoked bearer token');
      }
    }
    const principal = credential?.principal ?? ANONYMOUS_PRINCIPAL;
    const sessionId = req.headers['mcp-session-id'];
    let existing: HttpSession | undefined;
    if (sessionId !== undefined) {
      existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      // Another principal's session is as unknown to this one as a session that never existed.
      if (!existing || !sameCredential(existing.credential, credential)) return reply(res, 404, 'unknown or expired MCP session: initialize again');
    }
    if (!existing && req.method !== 'POST') return reply(res, 400, 'no MCP session: POST an initialize request first');
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readBody(req, MAX_BODY_BYTES);
      if (!read.ok) {
        reply(res, read.status, read.message, read.id, read.status === 413 ? -32600 : -32700);
        // An undrained body would keep streaming into a connection we no longer read.
        if (!read.drained) res.once('finish', () => req.socket.destroy());
        return;
      }
      body = read.value;
    }
    req.auth = principalAuthInfo(principal, 'http');
    if (existing) {
      sessions.track(existing, res);
      return existing.handle(req, res, body);
    }
    if (!isInitializeRequest(body)) return reply(res, 400, 'no MCP session: the first request must be initialize (later ones carry its mcp-session-id header)', idOf(body));
    if (!sessions.reserve()) {
      res.setHeader('Retry-After', String(Math.min(60, idleSeconds)));
      return reply(res, 503, `this server already has ${sessions.size} open MCP sessions, its limit (http.max_sessions): close sessions you no longer use (DELETE /mcp with their mcp-session-id), or retry after idle ones are closed (http.session_idle_seconds = ${idleSeconds})`, idOf(body), -32000);
    }
    try {
      await openSession(req, res, body, credential, principal);
    } finally {
      sessions.unreserve();
    }
  }

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, credential: Credential | undefined, principal: string): Promise<void> {
    const { mcp } = hub.session();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: HttpSession = {
          id, principal, credential, lastSeen: Date.now(), active: 0,
          handle: (rq, rs, b) => transport.handleRequest(rq, rs, b),
          close: () => mcp.close(),
        };
        sessions.add(session);
        sessions.track(session, res);
        log('debug', 'http session opened', { principal, open: sessions.size });
      },
    });
    transport.onclose = () => {
      if (!transport.sessionId) return;
      sessions.delete(transport.sessionId);
      log('debug', 'http session closed', { principal, open: sessions.size });
    };
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused (bad headers, bad version) made no session: drop it all.
    if (!transport.sessionId) await mcp.close();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new VmhubError('INVALID_REQUEST', `[vmhub] cannot listen on ${options.host}:${options.port}: ${err.code ?? err.message} (--host/--port, http.host/http.port)`, { cause: err })));
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as { port: number };
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${address.port}/mcp`;
  log('info', 'vmhub MCP over HTTP', { url, auth: open ? 'none (loopback opt-out)' : 'bearer', principals: credentials.principals, session_idle_seconds: idleSeconds, max_sessions: sessions.max });
  return {
    server,
    url,
    sessions: () => sessions.size,
    reclaimed: () => sessions.reclaimed,
    setTokens(tokens) {
      credentials = new Credentials(tokens);
      if (tokens.length > 0) open = false;
      const closed = sessions.closeWhere((s) => (s.credential ? !credentials.has(s.credential) : !open));
      return { principals: credentials.principals, closed };
    },
    async close() {
      await sessions.closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reply(res: ServerResponse, status: number, message: string, id?: string | number, code = -32000): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } }));
}

function sameCredential(a: Credential | undefined, b: Credential | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.principal === b.principal && a.digest.equals(b.digest);
}

function idOf(body: unknown): string | number | undefined {
  const id = (body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
