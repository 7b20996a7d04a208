/**
 * The two forms of a tool's arguments. Published (tools/list): an exclusive choice is one
 * property whose `anyOf` branches are closed objects (vm_exec `run`, vm_click `target`), and
 * vm_dispatch's `args` is JSON text — forms every model provider's schema rules take
 * (docs/agent-tools.md, "Schemas"). The calls of older clients, flat ({command}, {shell}, {job};
 * {x, y}, {text}, {mark}) or with args as an object, are still taken: `toPublished` moves them
 * into the published form before validation, and `toHandler` spreads the validated choice back
 * into the flat input the handlers read.
 */
import { VmhubError } from '../errors.ts';
import type { ToolName } from '../tools.ts';

/** Each exclusive choice: the published property and the fields its branches hold. */
export const EXCLUSIVE_CHOICES: Partial<Record<ToolName, { key: string; fields: readonly string[] }>> = {
  vm_exec: { key: 'run', fields: ['command', 'shell', 'job'] },
  vm_click: { key: 'target', fields: ['x', 'y', 'window', 'text', 'mark', 'ref'] },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An older flat call in the published form (a published call is returned as it is). */
export function toPublished(name: string, args: Record<string, unknown>): Record<string, unknown> {
  let out = args;
  const choice = EXCLUSIVE_CHOICES[name as ToolName];
  if (choice && !Object.hasOwn(args, choice.key)) {
    const given = choice.fields.filter((f) => Object.hasOwn(args, f));
    if (given.length > 0) {
      out = { ...args };
      const inner: Record<string, unknown> = {};
      for (const f of given) { inner[f] = out[f]; delete out[f]; }
      out[choice.key] = inner;
    }
  }
  if (name === 'vm_dispatch' && isObject(out.args)) out = { ...out, args: JSON.stringify(out.args) };
  return out;
}

/** Validated published arguments as the handler reads them. */
export function toHandler(name: string, input: Record<string, unknown>): Record<string, unknown> {
  const choice = EXCLUSIVE_CHOICES[name as ToolName];
  if (choice && isObject(input[choice.key])) {
    const { [choice.key]: inner, ...rest } = input;
    return { ...rest, ...(inner as Record<string, unknown>) };
  }
  if (name === 'vm_dispatch' && typeof input.args === 'string') {
    let parsed: unknown;
    try { parsed = JSON.parse(input.args); } catch { parsed = undefined; }
    if (!isObject(parsed)) throw new VmhubError('INVALID_REQUEST', 'vm_dispatch args must be the text of a JSON object, e.g. {"window":"xterm"} (or an object)');
    return { ...input, args: parsed };
  }
  return input;
}

/** A vm_batch step as strict-mode clients send it: every field present, null where not given. */
export function withoutNulls(step: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(step).filter(([, v]) => v !== null));
}
