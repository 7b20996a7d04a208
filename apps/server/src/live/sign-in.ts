/**
 * Browser sign-in of the live view (docs/live-view.md#signing-in). A token reaches the server
 * from a browser only in the body of a same-origin POST to /ui/login, and never goes into a
 * cookie: a sign-in is a random id (live/ui-sessions.ts) that works on /ui/ and /api/ only.
 *   - GET /ui/login, /ui/?token=… (the older link) and any /ui/ page without a live sign-in
 *     answer the sign-in page (ui/sign-in-page.ts). A GET never signs in. The page submits a
 *     token found in its address by itself only when `Sec-Fetch-Site` is `none` (typed, pasted,
 *     opened from another application) or `same-origin`; from another site's link the person
 *     confirms with the button.
 *   - POST /ui/login (`application/x-www-form-urlencoded`: token, next) is refused 403, with no
 *     cookie, unless it carries an Origin that is this server's own or in http.allowed_origins
 *     and, when the browser sends it, `Sec-Fetch-Site: same-origin` (login CSRF: another site
 *     must not sign a person in as its own principal). A token the server accepts answers 303 to
 *     `next` with a new sign-in cookie (ending the one the request carried); any other, a 401
 *     sign-in page saying so.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Credential } from '../http/auth.ts';
import { signInHtml, SIGN_IN_JS, SIGN_IN_REFERRER_POLICY, type SignInProblem } from '../ui/sign-in-page.ts';
import { clearCookie, COOKIE, cookieValue, escapeHtml, htmlPage, LEGACY_COOKIE, originProblem, sessionCookie } from './auth-cookie.ts';
import { LEASE_ID } from './recorder.ts';
import type { UiSessions } from './ui-sessions.ts';

export const SIGN_IN_PATH = '/ui/login';
export const SIGN_IN_SCRIPT_PATH = '/ui/sign-in.js';

const MAX_FORM_BYTES = 8 * 1024;
const PAGE_CSP = "default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export interface SignInContext {
  /** The credential of a presented token, if the server accepts it now. */
  match(token: string): Credential | undefined;
  sessions: UiSessions;
  allowedOrigins: readonly string[];
}

/** The live-view page to land on: `/ui/` or a lease page; anything else (other sites included) is `/ui/`. */
export function nextPath(value: string | null | undefined): string {
  if (value === '/ui/') return value;
  const lease = /^\/ui\/leases\/([^/]+)$/.exec(value ?? '');
  return lease && LEASE_ID.test(lease[1]!) ? value! : '/ui/';
}

/** The sign-in page. `auto` is decided here from the request (see the file comment). */
export function sendSignInPage(req: IncomingMessage, res: ServerResponse, status: 200 | 401, next: string, problem?: SignInProblem, cookies: string[] = []): void {
  const site = req.headers['sec-fetch-site'];
  const auto = site === 'none' || site === 'same-origin';
  const legacy = cookieValue(req, LEGACY_COOKIE) !== undefined ? [clearCookie(LEGACY_COOKIE)] : [];
  const body = req.method === 'HEAD' ? undefined : signInHtml({ next: nextPath(next), auto, problem });
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': PAGE_CSP, 'Referrer-Policy': SIGN_IN_REFERRER_POLICY,
    ...(status === 401 ? { 'WWW-Authenticate': 'Bearer realm="vmhub"' } : {}),
    ...(cookies.length + legacy.length > 0 ? { 'Set-Cookie': [...cookies, ...legacy] } : {}),
  }).end(body);
}

export function sendSignInScript(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : SIGN_IN_JS);
}

/** Why a POST to /ui/login is refused as cross-site, or undefined when it is this server's own page. */
export function loginProblem(req: IncomingMessage, allowedOrigins: readonly string[]): string | undefined {
  if (req.headers.origin === undefined) return 'a sign-in must come from this server\'s sign-in page: the POST carried no Origin header';
  const origin = originProblem(req, allowedOrigins, true);
  if (origin) return origin;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return `a sign-in must come from this server's sign-in page: the browser says this POST came from a ${site} page (Sec-Fetch-Site)`;
  return undefined;
}

/** POST /ui/login. */
export async function signIn(req: IncomingMessage, res: ServerResponse, ctx: SignInContext): Promise<void> {
  const refused = loginProblem(req, ctx.allowedOrigins);
  if (refused) return htmlPage(res, 403, 'sign-in refused', `<p>${escapeHtml(refused)}.</p><p>Open <code>/ui/login</code> on this server and sign in there.</p>`);
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return htmlPage(res, 415, 'sign-in refused', '<p>The sign-in form is sent as <code>application/x-www-form-urlencoded</code> (fields <code>token</code> and <code>next</code>).</p>');
  const form = await readForm(req);
  if (!form) return htmlPage(res, 413, 'sign-in refused', `<p>The sign-in form is over ${MAX_FORM_BYTES} bytes.</p>`);
  const next = nextPath(form.get('next'));
  const token = form.get('token') ?? '';
  const credential = token === '' ? undefined : ctx.match(token);
  if (!credential) return sendSignInPage(req, res, 401, next, 'wrong');
  const previous = cookieValue(req, COOKIE);
  if (previous !== undefined) ctx.sessions.end(previous);
  const id = ctx.sessions.create(credential);
  const cookies = [sessionCookie(id, ctx.sessions.maxAgeSeconds)];
  if (cookieValue(req, LEGACY_COOKIE) !== undefined) cookies.push(clearCookie(LEGACY_COOKIE));
  res.writeHead(303, { Location: next, 'Set-Cookie': cookies }).end();
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Past the limit the rest is read and dropped (a little of it), then the connection is cut.
    if (size > 8 * MAX_FORM_BYTES) break;
    if (size <= MAX_FORM_BYTES) chunks.push(chunk);
  }
  return size > MAX_FORM_BYTES ? undefined : new URLSearchParams(Buffer.concat(chunks, size).toString('utf8'));
}
