/**
 * Who drives a lease right now: the agent (default) or a person who took over in the live view,
 * and whether that person lets the agent's commands and file writes run meanwhile
 * (`allow_commands_and_files`, set with each take-over; input tools wait regardless).
 * Kept in the store (@vmhub/store's lease_control), not in this process: every server on the
 * store — the stdio server a desktop client started, HTTP servers, other hosts on PostgreSQL —
 * reads it on each gated call, so a take-over made through any of them stops the agent's input
 * through all of them, and survives a restart of the server that took it.
 */
import type { HumanControl } from '@vmhub/core/router';
import { LIVE_LEASE_STATES } from '@vmhub/core';
import type { LeaseControlState, LeaseRow, Store } from '@vmhub/store';

/** Longest hand-back note (characters). */
export const MAX_NOTE = 2000;

/** The router's view: set while a person holds the lease. One primary-key read per gated call. */
export async function heldControl(store: Store, leaseId: string): Promise<HumanControl | undefined> {
  const c = await store.heldBy(leaseId);
  return c?.since === undefined ? undefined : { human: true, since: new Date(c.since).toISOString(), allow_commands_and_files: c.allowCommandsAndFiles };
}

/**
 * What the live API shows of a lease's control: `control` ('human' only while the lease is live
 * and a person holds it), when and by whom, and the note the agent has not received yet.
 */
export function controlView(row: LeaseRow, c: LeaseControlState | undefined): Record<string, unknown> {
  const human = c?.since !== undefined && LIVE_LEASE_STATES.includes(row.status as never);
  return {
    control: human ? 'human' : 'agent',
    ...(human ? { control_since: new Date(c.since!).toISOString(), control_by: c.by, allow_commands_and_files: c.allowCommandsAndFiles } : {}),
    ...(c?.note !== undefined ? { note: c.note } : {}),
  };
}
