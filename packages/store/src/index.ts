/**
 * @vmhub/store — vmhub's state: leases (tombstoned, request_id unique per principal), machines (identity,
 * provider, node, state) and an append-only event/audit log, with forward-only migrations, in one
 * SQLite file (the embedded default: several processes on a host) or one PostgreSQL database
 * (several hosts). Same schema, state machine and claims on both.
 *
 * It owns the lease lifecycle: the state machine (TRANSITIONS), claims, teardown records and the
 * closed set of event kinds, so the server and the reaper write it the same way. The database
 * handle is not exported: every operation is a Store method.
 */
export { Store, openStore } from './store.ts';
export type { StoreOptions, NewLease, LeaseFilter, EventFilter, LeaseRow, MachineRow, EventRow, LeasePatch } from './store.ts';
export {
  LEASE_STATUSES, TRANSITIONS, FINAL_STATUSES, OWNING_STATUSES, MACHINE_STATES, SETTLED_MACHINE_STATES,
  LeaseTransitionError, canTransition,
  type LeaseStatus, type MachineState, type TransitionTarget,
} from './lifecycle.ts';
export { POOL_PRINCIPAL, POOL_LIVE_STATUSES, REAPER_PRINCIPAL, type PoolClaim } from './pools.ts';
export { EVENT_KINDS, EventKindError, isEventKind, type EventKind, type NewEvent } from './events.ts';
export { foldDestroys, listedRef, machineRef, type DestroyAnswer, type DestroyFold, type MachineRef } from './machine-ref.ts';
export type { ClaimResult, TeardownRecord, TeardownEvent, FinishedLease } from './teardowns.ts';
export type { ExpiredLease, FailedLease } from './sweeps.ts';
export type { Database, LeaseTable, MachineTable, EventTable, LeaseControlTable, SnapshotTable } from './schema.ts';
export type { LeaseControlState, TakeoverResult } from './control.ts';
export { MIGRATIONS, type Migration } from './migrations/index.ts';
export { migrate } from './migrate.ts';
export { StoreVersionError, StoreUnavailableError, StoreConfigError, StoreNativeModuleError } from './errors.ts';
export { parseStoreTarget, redact, type StoreTarget, type PostgresSettings } from './target.ts';
export type { SchemaInfo } from './backend.ts';
export type { Leadership } from './leadership.ts';
export { defaultStatePath, stateDirOf } from './paths.ts';
export type { LeaseCredential, NewLeaseCredential, CredentialOutcome } from './credentials.ts';
export { SealError } from './sealed.ts';
export type { ExecJob, JobProcess } from './jobs.ts';
export { LIVE_SNAPSHOT_STATES, snapshotRef, type SnapshotRow, type NewSnapshot, type SnapshotState, type SnapshotOutcome, type SnapshotFilter } from './snapshots.ts';
export { WorkspaceHeldError, type WorkspaceRow, type NewWorkspace, type WorkspaceState } from './workspaces.ts';
