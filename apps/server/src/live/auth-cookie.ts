/**
 * The live view's cookie and the origin and CSRF rules of /api and /ui. The cookie `vmhub_session`
 * (HttpOnly, SameSite=Strict) carries a random sign-in id (live/ui-sessions.ts), never a token:
 * a browser sends cookies to every port of a host, so a token in one would reach any other service
 * on 127.0.0.1. It is made by a same-origin POST to /ui/login (live/sign-in.ts) and read only for
 * /ui/ and /api/, never /mcp. The rules:
 *   - an Origin header must be an allowed origin or the server's own (`http://<Host>`);
 *   - a state-changing request authenticated by the cookie must carry an Origin (a browser
 *     always sends one on POST; a cross-site form that does not is refused);
 *   - a bearer request needs no Origin (scripts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const COOKIE = 'vmhub_session';
/** The cookie of earlier versions, which held the token itself: never read, cleared when seen. */
export const LEGACY_COOKIE = 'vmhub_token';

/** The value of one cookie of the request, undefined when absent. */
export function cookieValue(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try { return decodeURIComponent(raw); } catch { return raw; }
  }
  return undefined;
}

/** The Set-Cookie value of a sign-in id (base64url: nothing to encode). */
export function sessionCookie(id: string, maxAgeSeconds: number): string {
  return `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}`;
}

/** The Set-Cookie value that drops cookie `name`. */
export function clearCookie(name: string): string {
  return `${name}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
}

/** Why a request's Origin is refused, or undefined when it may go on. */
export function originProblem(req: IncomingMessage, allowed: readonly string[], byCookie: boolean): string | undefined {
  const origin = req.headers.origin;
  if (origin === undefined) {
    const changes = req.method !== 'GET' && req.method !== 'HEAD';
    return changes && byCookie ? 'a state-changing request signed in by cookie must carry an Origin header (CSRF)' : undefined;
  }
  if (allowed.includes(origin)) return undefined;
  const host = req.headers.host;
  if (host !== undefined && origin === `http://${host}`) return undefined;
  return `origin ${origin} is not allowed (http.allowed_origins, or this server's own origin)`;
}

/**
 * Without a token (the loopback opt-out) nothing but the Host header tells a DNS-rebinding
 * page from a local one: only loopback names may address the live view then.
 */
export function loopbackHost(req: IncomingMessage): boolean {
  const host = (req.headers.host ?? '').toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

/** Headers of every page and API answer: no framing, no caching, no referrer (a ?token= URL). */
export function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
}

export function htmlPage(res: ServerResponse, status: number, title: string, body: string, headers: Record<string, string> = {}): void {
  securityHeaders(res);
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', ...headers }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>vmhub: ${title}</title></head>
<body style="font:15px system-ui,sans-serif;margin:3rem;max-width:40rem"><h1>${title}</h1>${body}</body></html>
`);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
