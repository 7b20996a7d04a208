/**
 * A bounded wait on a lease being made (vm_lease_status and vm_lease_create {wait_seconds}):
 * up to 25 s — well under clients' 60 s — while it is provisioning or starting; it wakes on this
 * process's changes (changes.ts) and polls the store for other processes'. With a progress token,
 * every stage or status change is a progress notification. Ends early when the call is cancelled.
 */
import type { CallExtra } from '@vmhub/core/router';
import type { LeaseRow } from '@vmhub/store';
import { ACTIVE } from './deps.ts';
import type { LeaseChanges } from './changes.ts';
import { parseStages } from './view.ts';

/** How often a wait re-reads the store for changes other processes (another server, the reaper) made. */
const POLL_MS = 500;
/** The longest wait a call may ask for, in seconds. */
export const MAX_WAIT_SECONDS = 25;

/** Returns the lease as it is when the wait ends; `reread` gives its current row. */
export async function waitWhileMade(changes: LeaseChanges, row: LeaseRow, seconds: number | undefined, extra: CallExtra, reread: (id: string) => Promise<LeaseRow>): Promise<LeaseRow> {
  const until = Date.now() + Math.min(seconds ?? 0, MAX_WAIT_SECONDS) * 1000;
  const token = extra._meta?.progressToken;
  let seen = row.stages + row.status;
  let progress = 0;
  while (ACTIVE.includes(row.status) && Date.now() < until && !extra.signal.aborted) {
    await changes.next(row.id, Math.min(POLL_MS, until - Date.now()), extra.signal);
    row = await reread(row.id);
    if (token !== undefined && row.stages + row.status !== seen) {
      seen = row.stages + row.status;
      const stages = parseStages(row.stages);
      const current = stages.find((s) => s.status === 'running') ?? stages.at(-1);
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message: `${row.status}${current ? `: ${current.name} ${current.status}${current.detail ? ` (${current.detail})` : ''}` : ''}` } }).catch(() => undefined);
    }
  }
  return row;
}
