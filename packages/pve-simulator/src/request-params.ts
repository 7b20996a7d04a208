/**
 * Request parameter decoding and PVE's legacy coercions (pve-http-server decode_urlencoded and
 * pve-common RESTHandler): `&` and `;` separate pairs, `+` is a space, a repeated key becomes an
 * array; a single value for an array parameter becomes a one-element array; an array for a
 * `*-list` string is joined with `,`; form strings become numbers for integer/number/boolean
 * parameters when they have the right shape (otherwise they stay strings and fail the type check
 * with PVE's message).
 */
import type { PveSchema } from './schema-tree.ts';
import { lookupProp } from './pve-validate.ts';

export type RawParams = Record<string, string | string[] | unknown>;

export function decodeUrlencoded(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const pair of text.split(/[&;]/)) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const k = unescape(eq < 0 ? pair : pair.slice(0, eq));
    const v = unescape(eq < 0 ? '' : pair.slice(eq + 1));
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function unescape(s: string): string {
  const spaced = s.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // Perl's uri_unescape leaves malformed escapes alone instead of failing.
    return spaced.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

export function coerceParams(props: Record<string, PveSchema> | undefined, raw: RawParams, fromForm: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v0] of Object.entries(raw)) {
    const s = lookupProp(props, k);
    let v = v0;
    if (!s) {
      out[k] = v;
      continue;
    }
    if (s.type === 'array' && !Array.isArray(v)) v = [v];
    if (s.type !== 'array' && Array.isArray(v) && typeof s.format === 'string' && s.format.endsWith('-list')) v = v.join(',');
    out[k] = coerceScalar(s.type, v, fromForm.has(k));
  }
  return out;
}

function coerceScalar(type: string | undefined, v: unknown, form: boolean): unknown {
  if (type === 'integer' && typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  if (type === 'number' && typeof v === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(v)) return Number(v);
  if (type === 'boolean') {
    if (v === '1' || v === true) return 1;
    if (v === '0' || v === false) return 0;
  }
  if (type === 'string' && !form && (typeof v === 'number' || typeof v === 'boolean')) return typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
  return v;
}
