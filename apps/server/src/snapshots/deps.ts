/**
 * What the snapshot actions share (service.ts composes them): the store, the plugins, the
 * configuration's quotas, the lease manager (a lease as the caller may see it), the lease
 * sessions (a restore resets the lease's), and this process's actor name for events and claims.
 */
import type { VmhubConfig } from '@vmhub/core/config';
import type { Store } from '@vmhub/store';
import type { LeaseManager } from '../leases/manager.ts';
import type { Registry } from '../registry.ts';
import type { LeaseSessions } from '../sessions/lease-sessions.ts';

export interface SnapshotDeps {
  readonly store: Store;
  readonly registry: Registry;
  readonly config: VmhubConfig;
  readonly leases: LeaseManager;
  readonly sessions: LeaseSessions;
  /** `server:<host>:<pid>`. */
  readonly actor: string;
}

/** How long one provider call of a snapshot action may take (under clients' 60 s request timeout). */
export const SNAPSHOT_CALL_MS = 50_000;
/** How long a restore waits for the agent calls in flight on its lease (then LOCK_CONTENTION; with SNAPSHOT_CALL_MS, under 60 s). */
export const RESTORE_WAIT_MS = 8_000;
/** A deletion's claim: past it, another process (the reaper) may take the deletion over. */
export const DELETE_CLAIM_MS = 60_000;
