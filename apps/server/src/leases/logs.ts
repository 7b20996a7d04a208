/**
 * vm_logs: the end of a lease's log, for its own principal (any status: a failed lease's console
 * says why it failed while its machine is still there; its events stay after).
 *
 *   console — the machine's own log, from its provider (Provider.logs): a VM's serial console, a
 *             container's stdout and stderr. Only while the lease owns a machine.
 *   session — vmhub's events of the lease (created, ready, restarted, snapshot restored, …), one
 *             line each: time, kind, actor, data.
 *
 * Bounded twice: at most `tail` lines (default 100, at most 1000) and LOG_MAX_BYTES of text, from
 * the end. Every line goes through scrub.ts like everything vmhub echoes, so a credential a guest
 * printed (a URL with a token, `PASSWORD=…`, `Authorization: Bearer …`) reads `***`; a line longer
 * than LINE_MAX_CHARS is cut.
 */
import { VmhubError, type ToolInput, type ToolOutput } from '@vmhub/core';
import { deadlineSignal } from '@vmhub/core/router';
import { machineRef, SETTLED_MACHINE_STATES, type LeaseRow, type Store } from '@vmhub/store';
import type { Registry } from '../registry.ts';
import { scrubText } from '../scrub.ts';
import { assertMachine } from './machine-support.ts';

export const DEFAULT_TAIL = 100;
/** The most text one vm_logs answer carries (well within the result budget). */
export const LOG_MAX_BYTES = 64 * 1024;
const LINE_MAX_CHARS = 2000;
/** How long a provider may take to read its log. */
const LOGS_CALL_MS = 20_000;

export async function leaseLogs(store: Store, registry: Registry, row: LeaseRow, input: ToolInput<'vm_logs'>): Promise<ToolOutput<'vm_logs'>> {
  const tail = input.tail ?? DEFAULT_TAIL;
  if (input.source === 'session') {
    const events = await store.listEvents({ lease_id: row.id, newestFirst: true, limit: tail + 1 });
    const lines = events.slice(0, tail).reverse().map((e) => `${new Date(e.at).toISOString()} ${e.kind} ${e.actor}${e.data && e.data !== '{}' ? ` ${e.data}` : ''}`);
    return bounded('vmhub events of the lease', lines, events.length > tail);
  }
  const template = registry.templates.get(row.template);
  if (!template) throw new VmhubError('CAPABILITY_UNAVAILABLE', `vm_logs: template ${row.template} of lease ${row.id} is no longer configured: its provider cannot be asked`, { hint: 'vm_logs {source: "session"} still has the lease\'s events.' });
  const provider = registry.providers.get(template.provider);
  assertMachine(provider, template, 'logs', 'vm_logs');
  const machine = await store.getMachine(row.id);
  const ref = machine && !SETTLED_MACHINE_STATES.includes(machine.state) ? machineRef(machine) : undefined;
  if (!ref) {
    // A machine row still `creating` (no engine id yet) is one to come; a destroyed one is gone.
    throw new VmhubError('NOT_FOUND', `vm_logs: lease ${row.id} is ${row.status} and has no machine${machine && SETTLED_MACHINE_STATES.includes(machine.state) ? ' any more' : ' yet'}, so no console log`, { hint: 'vm_logs {source: "session"} has the lease\'s events.' });
  }
  const deadline = deadlineSignal(LOGS_CALL_MS, `vm_logs: the provider did not answer within ${LOGS_CALL_MS / 1000} s`);
  try {
    const log = await provider!.logs!(ref, { template, tail, max_bytes: LOG_MAX_BYTES, signal: deadline.signal });
    return bounded(log.source, log.lines.slice(-tail), log.truncated || log.lines.length > tail);
  } finally {
    deadline.clear();
  }
}

/** Scrubbed, each line cut at LINE_MAX_CHARS, and the newest lines kept within LOG_MAX_BYTES. */
function bounded(source: string, raw: string[], truncated: boolean): ToolOutput<'vm_logs'> {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = raw.length - 1; i >= 0; i--) {
    const line = scrubText(raw[i]!.length > LINE_MAX_CHARS ? `${raw[i]!.slice(0, LINE_MAX_CHARS)}…` : raw[i]!);
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > LOG_MAX_BYTES) { truncated = true; break; }
    lines.push(line);
  }
  return { source, lines: lines.reverse(), truncated };
}
