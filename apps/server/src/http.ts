/**
 * MCP over Streamable HTTP at /mcp, for agents on other hosts. Safe defaults: binds 127.0.0.1;
 * refuses to start without a bearer token unless it binds loopback AND the operator opted out
 * explicitly; requests carrying an Origin header that is not allowed get 403 (DNS rebinding).
 * Each token names a principal (http/auth.ts), passed to the SDK as the request's authInfo.
 * Two protocol generations share /mcp: a 2026-07-28 request (its `_meta` envelope; the SDK's
 * isLegacyRequest tells) is stateless, served by createMcpHandler on an McpServer of its own;
 * a 2025 client opens an MCP session with `initialize` (Mcp-Session-Id): each session gets its own
 * McpServer over the one shared runtime on the SDK's sessionful transport, is bound to the
 * credential that opened it, capped (http/sessions.ts), and closed when idle, when its
 * credential is revoked (setTokens, on SIGHUP), or by its client (DELETE).
 * The live view shares the port and the tokens: /ui/ (pages; a browser signs in by a same-origin
 * POST to /ui/login and then carries a random sign-in id, never a token, in its cookie) and /api/
 * (JSON), see live/ and docs/live-view.md. /mcp reads no cookie: only `Authorization: Bearer`.
 * OAuth clients that come without a token are told, in OAuth's own terms, that vmhub takes a
 * bearer token and registers no clients (http/oauth-discovery.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { createMcpHandler, isInitializeRequest, isJsonContentType, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { VmhubError } from '@vmhub/core';
import { log } from './log.ts';
import type { VmhubHub } from './server.ts';
import { Credentials, DEFAULT_PRINCIPAL, type Credential, type PrincipalToken } from './http/auth.ts';
import { readBody } from './http/body.ts';
import { handleOAuthDiscovery, requestOrigin, refuseToken } from './http/oauth-discovery.ts';
import { ANONYMOUS_PRINCIPAL, principalAuthInfo } from './http/principal.ts';
import { HttpSessions, refusalMessage, type HttpSession } from './http/sessions.ts';
import { handleApi, sendJson } from './live/api.ts';
import { handleWorkspacesApi, isWorkspacesApi } from './live/workspaces-api.ts';
import { clearCookie, COOKIE, cookieValue, escapeHtml, htmlPage, loopbackHost, originProblem, securityHeaders } from './live/auth-cookie.ts';
import { LEASE_ID } from './live/recorder.ts';
import { isStreamPath, streamUpgrades, type StreamAuth } from './live/stream-socket.ts';
import { sendSignInPage, sendSignInScript, signIn, SIGN_IN_PATH, SIGN_IN_SCRIPT_PATH } from './live/sign-in.ts';
import { UiSessions } from './live/ui-sessions.ts';
import { UI_FILES, type UiFile } from './ui/index.ts';

export { bearerToken, principalTokens, DEFAULT_PRINCIPAL, type PrincipalToken } from './http/auth.ts';
export { ANONYMOUS_PRINCIPAL, localPrincipal, principalOf } from './http/principal.ts';

/** The pages load only their own scripts and styles; frames arrive as blob: URLs. */
const PAGE_CSP = "default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Why a request is refused without a token when it names no loopback host. */
const LOOPBACK_ONLY = 'without a token the live view answers only loopback host names (DNS rebinding)';

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
  /** http.max_sessions_per_principal (default a quarter of maxSessions, at least 1). */
  maxSessionsPerPrincipal?: number | undefined;
  /** http.ui_session_idle_seconds (default 7200): a browser sign-in unused this long ends. */
  uiSessionIdleSeconds?: number;
  /** http.ui_session_max_seconds (default 43200): a browser sign-in ends this long after it was made. */
  uiSessionMaxSeconds?: number;
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
  const maxSessions = options.maxSessions ?? 100;
  const sessions = new HttpSessions({ idleMs: idleSeconds * 1000, max: maxSessions, perPrincipal: options.maxSessionsPerPrincipal ?? Math.max(1, Math.floor(maxSessions / 4)) });
  /** http://host:port as listened on: the origin of requests that name no Host. */
  let base = '';
  const uiSessions = new UiSessions({ idleMs: (options.uiSessionIdleSeconds ?? 7200) * 1000, maxMs: (options.uiSessionMaxSeconds ?? 43200) * 1000 });
  // 2026-07-28: one McpServer per request. 2025 traffic never reaches it (legacy: 'reject'): it is
  // routed to the sessions below first. Bodies are read (and capped) here, passed as parsedBody.
  const modernHandler = createMcpHandler(() => hub.session({ transport: 'http' }).mcp, {
    legacy: 'reject', responseMode: 'auto', maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (err) => log('debug', 'mcp request (2026-07-28) failed', { error: err.message }),
  });
  const modern = toNodeHandler(modernHandler, { maxRequestBodySize: MAX_BODY_BYTES, onerror: (err) => log('warn', 'mcp request (2026-07-28) failed', { error: err.message }) });

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      log('warn', 'http request failed', { error: err.message });
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });

  async function handle(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://vmhub');
    if (isLive(url.pathname)) return handleLive(req, res, url);
    // OAuth clients that came without a token look for OAuth; they are told it is a bearer token.
    if (!open && handleOAuthDiscovery(req, res, url.pathname, requestOrigin(req, base))) return;
    if (url.pathname !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp (the live view: /ui/)');
    const origin = req.headers.origin;
    if (origin !== undefined && !options.allowedOrigins.includes(origin)) return reply(res, 403, `origin ${origin} is not allowed (http.allowed_origins)`);
    let credential: Credential | undefined;
    if (!open) {
      credential = credentials.match(req.headers.authorization);
      if (!credential) return reply(res, 401, refuseToken(req, res, requestOrigin(req, base)).message);
    }
    const principal = credential?.principal ?? ANONYMOUS_PRINCIPAL;
    // A request naming a session is a 2025 client's; so is any but a POST (GET's event stream, DELETE).
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
    // A POST without a session: a 2026-07-28 request (stateless), or a 2025 client's initialize.
    if (body !== undefined && !(await isLegacyRequest(headersOnly(req), body))) {
      if (!isJsonContentType(req.headers['content-type'])) return reply(res, 415, 'Content-Type must be application/json', idOf(body));
      return modern(req, res, body);
    }
    if (!isInitializeRequest(body)) return reply(res, 400, 'no MCP session: the first request must be initialize (later ones carry its mcp-session-id header)', idOf(body));
    const refusal = sessions.reserve(principal);
    if (refusal) {
      res.setHeader('Retry-After', String(Math.min(60, idleSeconds)));
      return reply(res, refusal.status, refusalMessage(refusal, principal, idleSeconds), idOf(body), -32000, { cap: refusal.cap, limit: refusal.limit, open: refusal.open });
    }
    try {
      await openSession(req, res, body, credential, principal);
    } finally {
      sessions.unreserve(principal);
    }
  }

  /** /ui/ and /api/: the same tokens as /mcp, by bearer header or a browser sign-in (live/sign-in.ts). */
  async function handleLive(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    securityHeaders(res);
    const ui = url.pathname === '/ui' || url.pathname.startsWith('/ui/');
    const refuse = (status: number, code: string, message: string, hint?: string) => ui
      ? htmlPage(res, status, status === 403 ? 'refused' : status === 405 ? 'method not allowed' : 'not found', `<p>${escapeHtml(message)}</p>`)
      : sendJson(res, status, { error: { code, message, ...(hint ? { hint } : {}) } });
    if (req.headers.origin !== undefined && originProblem(req, options.allowedOrigins, false)) return refuse(403, 'FORBIDDEN', originProblem(req, options.allowedOrigins, false)!);
    if (open && !loopbackHost(req)) return refuse(403, 'FORBIDDEN', LOOPBACK_ONLY);
    // The sign-in page, its script and the styles need no sign-in; a GET never signs in.
    if (url.pathname === SIGN_IN_PATH && req.method === 'POST') {
      if (open) return void res.writeHead(303, { Location: '/ui/' }).end();
      return signIn(req, res, { match: (token) => credentials.match(`Bearer ${token}`), sessions: uiSessions, allowedOrigins: options.allowedOrigins });
    }
    if (url.pathname === SIGN_IN_PATH || url.pathname === SIGN_IN_SCRIPT_PATH || url.pathname === '/ui/app.css' || (ui && url.searchParams.has('token'))) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(405, 'INVALID_REQUEST', `${req.method} is not allowed on ${url.pathname}`);
      if (url.pathname === SIGN_IN_SCRIPT_PATH) return sendSignInScript(req, res);
      if (url.pathname === '/ui/app.css') return sendFile(req, res, UI_FILES['/ui/app.css']!);
      // Without a token there is nothing to sign in with; the token leaves the address either way.
      if (open) return void res.writeHead(303, { Location: url.pathname === SIGN_IN_PATH ? '/ui/' : url.pathname }).end();
      return sendSignInPage(req, res, 200, url.pathname);
    }
    const access = liveAccess(req);
    if ('status' in access && access.status === 401) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="vmhub"');
      // A sign-in that ended (idle, past its cap, token revoked, server restarted) is dropped with the answer.
      const drop = access.byCookie ? [clearCookie(COOKIE)] : [];
      if (ui) return sendSignInPage(req, res, 401, url.pathname, access.byCookie ? 'ended' : undefined, drop);
      if (access.byCookie) res.setHeader('Set-Cookie', drop);
      return sendJson(res, 401, { error: { code: 'UNAUTHORIZED', message: access.message, hint: 'Send Authorization: Bearer <token> (VMHUB_HTTP_TOKEN or your http.tokens entry), or sign in again at /ui/login.' } });
    }
    if ('status' in access) return refuse(403, 'FORBIDDEN', access.message);
    const { principal, byCookie } = access;
    // The pages show who is signed in; a principal name is not a secret to its own holder.
    res.setHeader('X-Vmhub-Principal', principal);
    // Workspaces (live/workspaces-api.ts): deleting one needs a browser sign-in, never a bearer token.
    if (!ui && isWorkspacesApi(url)) return handleWorkspacesApi(req, res, url, principal, hub.live, byCookie);
    if (!ui) return handleApi(req, res, url, principal, hub.live);
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(405, 'INVALID_REQUEST', `${req.method} is not allowed on the live view's pages`);
    if (url.pathname === '/ui') return void res.writeHead(303, { Location: '/ui/' }).end();
    const lease = /^\/ui\/leases\/([^/]+)\/?$/.exec(url.pathname);
    const file = lease ? (LEASE_ID.test(lease[1]!) ? UI_FILES['/ui/lease'] : undefined) : url.pathname === '/ui/lease' ? undefined : UI_FILES[url.pathname];
    if (!file) return refuse(404, 'NOT_FOUND', `no page ${url.pathname}: the live view starts at /ui/`);
    sendFile(req, res, file);
  }

  /** The credential of a /ui or /api request: its bearer header, else its sign-in cookie. */
  function liveCredential(req: IncomingMessage): { credential: Credential | undefined; byCookie: boolean } {
    if (req.headers.authorization !== undefined) return { credential: credentials.match(req.headers.authorization), byCookie: false };
    const id = cookieValue(req, COOKIE);
    return { credential: id === undefined ? undefined : uiSessions.use(id, (c) => credentials.has(c)), byCookie: id !== undefined };
  }

  /**
   * Who may use /ui, /api and the live stream once past the sign-in routes: the bearer header or
   * the sign-in cookie (none needed without a token), then the origin rule (originProblem). An
   * upgrade signed in by cookie must carry an Origin: a browser always sends one with a
   * WebSocket, and a page on another port of this host carries the cookie too.
   */
  function liveAccess(req: IncomingMessage, upgrade = false): { principal: string; byCookie: boolean } | { status: 401 | 403; message: string; byCookie: boolean } {
    let credential: Credential | undefined;
    let byCookie = false;
    if (!open) {
      ({ credential, byCookie } = liveCredential(req));
      if (!credential) return { status: 401, byCookie, message: byCookie ? 'your live-view sign-in ended (unused too long, past its time limit, its token revoked, or the server restarted)' : 'missing, wrong or revoked bearer token' };
    }
    if (upgrade && byCookie && req.headers.origin === undefined) return { status: 403, byCookie, message: 'a stream opened with the sign-in cookie must carry an Origin header' };
    const problem = originProblem(req, options.allowedOrigins, byCookie);
    if (problem) return { status: 403, byCookie, message: problem };
    return { principal: credential?.principal ?? ANONYMOUS_PRINCIPAL, byCookie };
  }

  /** Who opens a live stream (live/stream-socket.ts): loopback names only without a token, then liveAccess. */
  function streamAuth(req: IncomingMessage): StreamAuth {
    if (open && !loopbackHost(req)) return { status: 403, message: LOOPBACK_ONLY };
    const access = liveAccess(req, true);
    return 'status' in access ? { status: access.status, message: access.message } : { principal: access.principal };
  }

  const upgradeStream = streamUpgrades(hub.live, streamAuth);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://vmhub').pathname;
    if (isStreamPath(path)) return upgradeStream(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, credential: Credential | undefined, principal: string): Promise<void> {
    const { mcp } = hub.session({ transport: 'http' });
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
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
  base = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${address.port}`;
  const url = `${base}/mcp`;
  log('info', 'vmhub MCP over HTTP', { url, live_view: url.replace(/\/mcp$/, '/ui/'), auth: open ? 'none (loopback opt-out)' : 'bearer', principals: credentials.principals, session_idle_seconds: idleSeconds, max_sessions: sessions.max, max_sessions_per_principal: sessions.perPrincipal });
  return {
    server,
    url,
    sessions: () => sessions.size,
    reclaimed: () => sessions.reclaimed,
    setTokens(tokens) {
      credentials = new Credentials(tokens);
      if (tokens.length > 0) open = false;
      const closed = sessions.closeWhere((s) => (s.credential ? !credentials.has(s.credential) : !open));
      uiSessions.endWhere((c) => !credentials.has(c));
      return { principals: credentials.principals, closed };
    },
    async close() {
      await modernHandler.close();
      await sessions.closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reply(res: ServerResponse, status: number, message: string, id?: string | number, code = -32000, data?: Record<string, unknown>): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } }));
}

function sendFile(req: IncomingMessage, res: ServerResponse, file: UiFile): void {
  res.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': PAGE_CSP, 'X-Frame-Options': 'DENY' }).end(req.method === 'HEAD' ? undefined : file.body);
}

function isLive(path: string): boolean {
  return path === '/ui' || path.startsWith('/ui/') || path === '/api' || path.startsWith('/api/');
}

function sameCredential(a: Credential | undefined, b: Credential | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.principal === b.principal && a.digest.equals(b.digest);
}

/**
 * The request's method, URL and headers as a web Request without its body, for isLegacyRequest,
 * which classifies from the parsed body given beside it (toWebRequest would serialize a body of up
 * to 96 MiB again only to be looked at).
 */
function headersOnly(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(req.url ?? '/mcp', 'http://vmhub'), { method: req.method ?? 'POST', headers });
}

function idOf(body: unknown): string | number | undefined {
  const id = (body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
