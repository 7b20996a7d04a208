/**
 * Table shapes as kysely sees them. Times are milliseconds since the epoch; JSON columns are TEXT.
 */
import type { Generated } from 'kysely';
import type { EventKind } from './events.ts';
import type { LeaseStatus, MachineState } from './lifecycle.ts';

export interface LeaseTable {
  id: string;
  request_id: string;
  template: string;
  provider: string;
  adapter: string;
  /** A label the agent chose (vm_lease_create owner), shown back; not what quotas count. */
  owner: string | null;
  /** Who created it: the HTTP token's principal, or the local OS user on stdio. Quotas count it. */
  principal: string | null;
  /** Changed only through the state machine (lifecycle.ts): `transition()` and the sweeps. */
  status: LeaseStatus;
  identity: string;
  created_at: number;
  updated_at: number;
  expires_at: number;
  max_expires_at: number;
  /** Provisioning (or releasing) must finish by then, or the reaper fails the lease. */
  deadline_at: number | null;
  stages: string;
  error_code: string | null;
  error_message: string | null;
  /** Process that owns the current transition (server pid/host or reaper id). */
  claimed_by: string | null;
  claim_expires_at: number | null;
  /** The store call that last changed the row (migration 4): lets a retried write see that its first attempt committed. */
  write_token: string | null;
}

export interface MachineTable {
  lease_id: string;
  identity: string;
  provider: string;
  external_id: string | null;
  node: string | null;
  state: MachineState;
  details: string;
  created_at: number;
  updated_at: number;
}

export interface EventTable {
  id: Generated<number>;
  at: number;
  lease_id: string | null;
  actor: string;
  /** One of EVENT_KINDS (rows written before the set was closed may hold others). */
  kind: EventKind;
  data: string;
  /** Unique per event written by a store call (migration 4): a retried write never adds it twice. Null on older rows. */
  token: Generated<string | null>;
}

/** A named lock held until `until` (ms) by `holder`; lapsed locks may be taken over. */
export interface LockTable {
  name: string;
  holder: string;
  until: number;
}

/** Every column of a lease row, for explicit selects (PostgreSQL's table also has `seq`, which is not part of a row). */
export const LEASE_COLUMNS = [
  'id', 'request_id', 'template', 'provider', 'adapter', 'owner', 'principal', 'status', 'identity', 'created_at', 'updated_at',
  'expires_at', 'max_expires_at', 'deadline_at', 'stages', 'error_code', 'error_message', 'claimed_by', 'claim_expires_at', 'write_token',
] as const satisfies readonly (keyof LeaseTable)[];
// Fails to compile when a column is added to LeaseTable but not to LEASE_COLUMNS.
type Missing = Exclude<keyof LeaseTable, (typeof LEASE_COLUMNS)[number]>;
const _allColumns: Missing extends never ? true : Missing = true;
void _allColumns;

/**
 * Who drives a lease (migration 6, control.ts): a row once a person took it over in the live
 * view. `held_since` (ms) is set while they hold it; `note` is the hand-back note the agent has
 * not received yet.
 */
export interface LeaseControlTable {
  lease_id: string;
  held_since: number | null;
  /** The principal whose live view took over. */
  held_by: string | null;
  /** The take-over call that set held_since (a retried write recognises its own). */
  held_token: string | null;
  /** 0/1: the person lets the agent's commands and file writes run while they hold the lease. */
  allow_commands_and_files: number;
  note: string | null;
  /** The call that took the last note (a retried take recognises its own). */
  note_token: string | null;
  updated_at: number;
}

/**
 * A secret made for one lease that its end must undo (credentials.ts): `sealed` is the secret
 * under the state directory's key (sealed.ts); the other columns hold nothing secret.
 */
export interface LeaseCredentialTable {
  id: string;
  lease_id: string;
  /** e.g. `github_app_token` */
  kind: string;
  /** What it opens, e.g. `github.com/owner/repo`. */
  scope: string;
  sealed: string;
  /** JSON: what a refresh needs (installation, permissions, guest path); nothing secret. */
  details: string;
  expires_at: number;
  created_at: number;
  revoked_at: number | null;
  /** revoked | already_invalid | expired */
  outcome: string | null;
  attempts: number;
  last_error: string | null;
}

/**
 * A snapshot of a lease's machine (migration 8, snapshots.ts). `identity` is
 * `vmhub-<instance>-snap-<id>`, carried by the snapshot in the provider's own metadata and read
 * back before it is deleted. `memory` 0/1; `state` ready | deleting | deleted; a deleting row's
 * claim (claimed_by, claim_expires_at) lapses like a teardown's, so the reaper takes over.
 */
export interface SnapshotTable {
  id: string;
  /** The principal that made it: the only one that sees it. */
  principal: string;
  /** The lease whose machine it was taken of (it outlives that lease). */
  lease_id: string;
  template: string;
  provider: string;
  identity: string;
  external_id: string;
  node: string | null;
  /** JSON: the provider's private details (SnapshotRef.details); nothing secret. */
  details: string;
  memory: number;
  size_bytes: number;
  name: string | null;
  created_at: number;
  expires_at: number;
  state: string;
  claimed_by: string | null;
  claim_expires_at: number | null;
  deleted_at: number | null;
  /** What deleteSnapshot answered: destroyed | already_gone | identity_mismatch. */
  outcome: string | null;
  attempts: number;
  last_error: string | null;
}

/**
 * A workspace (migration 9, workspaces.ts): a named volume of one principal, kept across leases.
 * `holder_lease` holds it while that lease is live or its machine not yet destroyed.
 */
export interface WorkspaceTable {
  id: string;
  principal: string;
  /** The principal's name for it (`[a-z0-9][a-z0-9._-]{0,62}`), unique per principal. */
  name: string;
  provider: string;
  /** `vmhub-<instance>-ws-<id>`, carried by the volume in the provider's own metadata. */
  identity: string;
  /** The template of the lease that made it. */
  template: string;
  /** Guest path it is mounted at. */
  path: string;
  /** ready | deleting */
  state: string;
  holder_lease: string | null;
  /** As last measured (provider.workspaceBytes). */
  bytes: number;
  created_at: number;
  used_at: number;
}

/**
 * A detached command (migration 10, jobs.ts): written by the server process that runs it, read by
 * any. `started_by` is JSON {pid, host, run}; `seen_at` (ms) the last heartbeat of that process
 * while the job runs; `outcome` the sealed JSON of its result or error, set with `finished_at`
 * (ms) when it ends.
 */
export interface ExecJobTable {
  id: string;
  lease_id: string;
  started_at: number;
  started_by: string;
  seen_at: number;
  finished_at: number | null;
  outcome: string | null;
}

/** The last step number given for a lease's recording (migration 10, recording-steps.ts). */
export interface RecordingStepTable {
  lease_id: string;
  steps: number;
}

/** A lease's latest screen mapping as JSON (migration 10, screens.ts). */
export interface LeaseScreenTable {
  lease_id: string;
  mapping: string;
  updated_at: number;
}

export interface Database {
  leases: LeaseTable;
  machines: MachineTable;
  events: EventTable;
  locks: LockTable;
  lease_control: LeaseControlTable;
  lease_credentials: LeaseCredentialTable;
  snapshots: SnapshotTable;
  workspaces: WorkspaceTable;
  exec_jobs: ExecJobTable;
  recording_steps: RecordingStepTable;
  lease_screens: LeaseScreenTable;
}
