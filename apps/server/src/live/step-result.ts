/**
 * What a recording step keeps of a call's result, beside its arguments: the error's code and
 * message, or the structured result (vm_exec's exit code, stdout and stderr; vm_click's screen
 * point; …) under the same redaction as the arguments (redact.ts: secrets by key and by value,
 * file bodies hidden, strings cut at MAX_STRING), and bounded as a whole (MAX_RESULT_CHARS of
 * JSON). Images are never kept here: the step's screenshot is the image.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { scrubText } from '../scrub.ts';
import { cut, redactArgs } from './redact.ts';

/** Longest result a step keeps, as JSON; a bigger one keeps only its top-level scalars. */
export const MAX_RESULT_CHARS = 1200;
/** Longest error message kept. */
const MAX_MESSAGE = 300;
/** Result fields that are not the call's outcome: the lease's (every VM-bound result carries them) and the delivered note (the step's `note`). */
const DROPPED = new Set(['lease_id', 'expires_at', 'human_note']);

export function stepResult(outcome: 'ok' | 'error', result: CallToolResult): Record<string, unknown> | undefined {
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (outcome === 'error') {
    const message = typeof structured?.message === 'string' ? structured.message : result.content.find((c) => c.type === 'text')?.text;
    return { ...(typeof structured?.code === 'string' ? { code: structured.code } : {}), ...(message ? { message: cut(scrubText(message), MAX_MESSAGE) } : {}) };
  }
  if (!structured || typeof structured !== 'object') return undefined;
  const kept = redactArgs(Object.fromEntries(Object.entries(structured).filter(([k]) => !DROPPED.has(k))));
  if (Object.keys(kept).length === 0) return undefined;
  if (JSON.stringify(kept).length <= MAX_RESULT_CHARS) return kept;
  // Too big (a window list, an element tree): the scalars, and what the rest was.
  const brief: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(kept)) brief[k] = v !== null && typeof v === 'object' ? (Array.isArray(v) ? `[${v.length} items]` : '[object]') : v;
  return JSON.stringify(brief).length <= MAX_RESULT_CHARS ? brief : { omitted: `${Object.keys(kept).length} fields, over ${MAX_RESULT_CHARS} characters` };
}
