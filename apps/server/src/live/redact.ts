/**
 * Tool arguments as a recording keeps them: the lease id dropped (the folder names it), secrets
 * and file contents replaced, long strings cut. Applied at every depth (vm_batch steps, dispatch
 * args), so a secret nested in a step is redacted too.
 */

/** Keys whose values never reach a recording, at any depth. */
export const SECRET_KEYS: ReadonlySet<string> = new Set(['content', 'content_base64', 'stdin', 'token', 'password', 'secret']);
/** Strings longer than this are cut (with their length said). */
export const MAX_STRING = 200;
/** Nesting kept; deeper values are summarised (tool inputs are shallow; this only bounds abuse). */
const MAX_DEPTH = 8;

export function redactArgs(args: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args ?? {})) {
    if (key === 'lease_id') continue;
    out[key] = redactValue(key, value, 1);
  }
  return out;
}

function redactValue(key: string, value: unknown, depth: number): unknown {
  if (SECRET_KEYS.has(key.toLowerCase())) return '[redacted]';
  if (typeof value === 'string') return cut(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? `[${value.length} items]` : '[object]';
  if (Array.isArray(value)) return value.map((v) => redactValue('', v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactValue(k, v, depth + 1);
  return out;
}

export function cut(text: string, max = MAX_STRING): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}
