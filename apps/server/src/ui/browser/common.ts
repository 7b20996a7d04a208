/**
 * What both pages share: the API client (same-origin, the HttpOnly cookie rides along), the
 * message line, the principal in the header, relative times and frame fetching. Each page is
 * bundled into one script (an IIFE), so nothing here leaks into window.
 */
import type { FrameGeometry } from './types.ts';

export const LEASE_ID = /^[0-9a-f-]{36}$/;
const ENDED_STATES = new Set(['released', 'failed', 'expired', 'reaped']);

/** A lease in one of these states is over: no screen, no input, no renewing. */
export function isEnded(status: string | undefined): boolean {
  return status !== undefined && ENDED_STATES.has(status);
}

/** The page's element of that id (the pages' HTML is in ui/*-page.ts; test/ui-files.test.ts checks every id looked up exists). */
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

type Props = Record<string, string | number | null | undefined>;

export function el(tag: string, props?: Props | null, children?: (Node | string | null)[]): HTMLElement {
  const node = document.createElement(tag);
  if (props) {
    for (const k in props) {
      const v = props[k];
      if (k === 'text') node.textContent = v === undefined || v === null ? '' : String(v);
      else if (k === 'className') node.className = String(v);
      else if (v !== undefined && v !== null) node.setAttribute(k, String(v));
    }
  }
  for (const c of children || []) if (c) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

// One line at the top of the page for what went wrong (or right); errors stay until replaced.
export function say(text: string, kind?: string): void {
  const box = $('message');
  if (!box) return;
  box.textContent = text || '';
  box.className = 'message' + (kind ? ' ' + kind : '');
  box.hidden = !text;
}

export class ApiError extends Error {
  status: number;
  code: string;
  hint: string;
  constructor(message: string, status: number, code: string, hint: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
  }
}

interface ErrorBody { error?: { message?: string; code?: string; hint?: string } }

function apiError(res: Response, body: unknown): ApiError {
  const e = (body as ErrorBody | null)?.error || {};
  return new ApiError(e.message || (res.status + ' ' + res.statusText), res.status, e.code || '', e.hint || '');
}

export function errorText(err: unknown): string {
  const e = err as Partial<ApiError> | null | undefined;
  if (e && e.status === 401) return 'Signed out (the sign-in ended, or its token was revoked): reload the page to sign in again.';
  let text = (e && e.message) || String(err);
  if (e && e.code) text = e.code + ': ' + text;
  if (e && e.hint) text += ' ' + e.hint;
  return text;
}

// The server may name the signed-in principal in X-Vmhub-Principal (any API answer) or in a
// principal field of GET /api/leases; the header of the page shows it when it does.
function notePrincipal(res: Response, body: unknown): void {
  const field = (body as { principal?: unknown } | null)?.principal;
  const who = res.headers.get('X-Vmhub-Principal') || (typeof field === 'string' ? field : '');
  const slot = $('principal');
  if (who && slot && slot.textContent !== who) { slot.textContent = who; slot.hidden = false; }
}

function parse(text: string): unknown {
  try { return text ? JSON.parse(text) : null; } catch { return null; }
}

/** One JSON API call; T is what the caller expects the answer to hold (the server's shapes, unchecked). */
export function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const init: RequestInit = { method, credentials: 'same-origin', cache: 'no-store', headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return fetch(path, init).then((res) => res.text().then((text) => {
    const data = parse(text);
    if (!res.ok) throw apiError(res, data);
    notePrincipal(res, data);
    return data as T;
  }));
}

export type Frame =
  | { unchanged: true; tag: string }
  | { unchanged?: false; blob: Blob; geometry: Pick<FrameGeometry, 'screenWidth' | 'screenHeight' | 'scale'>; tag: string };

// A screen frame with the geometry headers an <img src> could not read.
export function fetchFrame(path: string): Promise<Frame> {
  return fetch(path, { credentials: 'same-origin', cache: 'no-store' }).then((res): Frame | Promise<Frame> => {
    if (!res.ok) return res.text().then((text) => { throw apiError(res, text ? parse(text) : null); });
    const tag = res.headers.get('X-Frame') || '';
    // 204: the screen is what the image on display shows (the request's ?since= named it).
    if (res.status === 204) return { unchanged: true, tag };
    const geometry = {
      screenWidth: Number(res.headers.get('X-Screen-Width')) || 0,
      screenHeight: Number(res.headers.get('X-Screen-Height')) || 0,
      scale: Number(res.headers.get('X-Image-Scale')) || 0,
    };
    return res.blob().then((blob) => ({ blob, geometry, tag }));
  });
}

export function shortId(id: string): string { return String(id).slice(0, 8); }

export function relTime(iso: string | undefined, now?: number): string {
  const t = Date.parse(iso as string);
  if (!isFinite(t)) return '';
  const s = Math.round((t - (now === undefined ? Date.now() : now)) / 1000);
  const a = Math.abs(s);
  let text: string;
  if (a < 45) return s >= 0 ? 'in a few seconds' : 'just now';
  if (a < 3600) text = Math.round(a / 60) + ' min';
  else if (a < 86400) text = Math.floor(a / 3600) + ' h ' + Math.round((a % 3600) / 60) + ' min';
  else text = Math.round(a / 86400) + ' d';
  return s >= 0 ? 'in ' + text : text + ' ago';
}

export function clockTime(iso: string): string {
  const d = new Date(iso);
  return isNaN(d.getTime()) ? '' : d.toLocaleTimeString();
}

export function statusBadge(node: HTMLElement, status: string | undefined): void {
  node.textContent = status || '…';
  node.className = 'badge status-' + (status || 'unknown');
}

export function controlBadge(node: HTMLElement, control: string | undefined): void {
  node.textContent = control || '…';
  node.className = 'badge control-' + (control || 'unknown');
}
