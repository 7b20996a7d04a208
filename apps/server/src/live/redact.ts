/**
 * Tool arguments as a recording keeps them: the lease id dropped (the folder names it), secrets
 * and file contents replaced, long strings cut. Applied at every depth (vm_batch steps, dispatch
 * args, arrays), so a secret nested anywhere is redacted too.
 *
 * The contract, in order, for every value:
 * 1. By key: the value of a key in FILE_KEYS (file bodies, stdin), or of a key whose name holds a
 *    secret word (scrub.ts SECRET_WORDS, a case-insensitive substring: `api_key`, `Authorization`,
 *    `GITHUB_TOKEN`, `sessionid`, `credentials`…), becomes `"[redacted]"` whatever its type.
 *    Exception: the tools' own non-secret fields in OWN_FIELDS (vm_key's `keys`, also in vm_batch
 *    steps and the person's key input) stay readable, but only where a tool defines them — the
 *    top level of the arguments and a vm_batch step; inside free-form values (vm_dispatch `args`,
 *    anything nested) `keys` is judged like any other name.
 * 2. By value: every string (values and object keys) goes through scrub.ts scrubText — URL
 *    userinfo and query/fragment values, `NAME=value` / `Name: value` / `"name": "value"` /
 *    `--flag value` assignments to secret-like names, `Bearer …` become `***`; in an array of
 *    strings (argv: vm_exec `command`, vm_launch `args`) the word after a secret flag
 *    (`--token`, `--password`) is `***` too.
 * 3. Strings longer than MAX_STRING are cut (after 2, so a cut never leaves a secret's tail).
 */
import { isSecretFlag, isSecretName, MASK, scrubText } from '../scrub.ts';

/** Keys whose values never reach a recording, at any depth: file bodies and stdin, secret or not. */
export const FILE_KEYS: ReadonlySet<string> = new Set(['content', 'content_base64', 'stdin']);
/** Tool fields whose names hold a secret word but whose values are not secrets (readable at the tool's own levels). */
export const OWN_FIELDS: ReadonlySet<string> = new Set(['keys']);
/** What a value hidden by its key reads as. */
export const REDACTED = '[redacted]';
/** Strings longer than this are cut (with their length said). */
export const MAX_STRING = 200;
/** Nesting kept; deeper values are summarised (tool inputs are shallow; this only bounds abuse). */
const MAX_DEPTH = 8;

/** Whether the value under `key` is hidden whole. `own`: the key is at a level a tool's schema defines. */
export function secretKey(key: string, own: boolean): boolean {
  const lower = key.toLowerCase();
  if (FILE_KEYS.has(lower)) return true;
  if (own && OWN_FIELDS.has(lower)) return false;
  return isSecretName(lower);
}

export function redactArgs(args: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args ?? {})) {
    if (key === 'lease_id') continue;
    // vm_batch steps are tool arguments themselves: their fields are the tools' own too.
    const own = key === 'actions' && Array.isArray(value);
    out[scrubText(key)] = redactValue(key, value, 1, true, own);
  }
  return out;
}

/** `ownKey`: `key` sits at a tool's own level; `ownItems`: the value's items are tool arguments (vm_batch steps). */
function redactValue(key: string, value: unknown, depth: number, ownKey: boolean, ownItems = false): unknown {
  if (secretKey(key, ownKey)) return REDACTED;
  if (typeof value === 'string') return cut(scrubText(value));
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? `[${value.length} items]` : '[object]';
  if (Array.isArray(value)) {
    return value.map((v, i) => {
      const prev = value[i - 1];
      if (typeof v === 'string' && typeof prev === 'string' && isSecretFlag(prev)) return MASK;
      if (ownItems && v !== null && typeof v === 'object' && !Array.isArray(v)) return redactObject(v as Record<string, unknown>, depth + 1, true);
      return redactValue('', v, depth + 1, false);
    });
  }
  return redactObject(value as Record<string, unknown>, depth, false);
}

function redactObject(value: Record<string, unknown>, depth: number, own: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[scrubText(k)] = redactValue(k, v, depth + 1, own);
  return out;
}

export function cut(text: string, max = MAX_STRING): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}
