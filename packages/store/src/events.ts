/**
 * The audit log's closed vocabulary. Operators and tests query events by kind, so a kind is a
 * contract: every one is listed here, the compiler refuses any other, and the store refuses one
 * at run time too (a plain-JS caller, a cast). Add a kind here before writing it.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, EventTable } from './schema.ts';

export const EVENT_KINDS = [
  // Lease lifecycle, one per transition (plus creation and renewal).
  'lease.created',
  'lease.renewed',
  // A warm pool's ready lease handed to an agent (pools.ts): its request_id, principal, owner.
  'lease.claimed',
  'lease.ready',
  'lease.releasing',
  'lease.released',
  'lease.expired',
  'lease.failed',
  'lease.reaped',
  // vm_lease_restart: the reboot asked ({hard}), and its end ({outcome: ready|failed, how, ms}).
  'lease.restarting',
  'lease.restarted',
  // What a provider's destroy() answered for a lease's machine.
  'machine.destroyed',
  'machine.already_gone',
  'machine.identity_mismatch',
  // A ready lease's machine was removed or stopped outside vmhub (the lease is failed: MACHINE_LOST).
  'machine.lost',
  // Machines carrying this instance's identity with no live lease (the reaper's sweep).
  'orphan.found',
  'orphan.destroyed',
  'orphan.already_gone',
  // A teardown that failed and is retried on the next pass.
  'reaper.teardown_error',
  // A detached command (vm_exec {detach: true}) started by a server process: its job id and that
  // process ({job, pid, host, run}), for the audit log (the job itself: table exec_jobs, jobs.ts).
  'exec.detached',
  // Snapshots (snapshots.ts; lease_id: the lease the snapshot was taken of, data.snapshot: its id).
  'snapshot.created',
  'snapshot.restored',
  // A fork: a lease created from a snapshot (data: the snapshot, the new lease).
  'snapshot.forked',
  // What a provider's deleteSnapshot() answered (by the agent's delete, or the reaper at expiry).
  'snapshot.deleted',
  'snapshot.already_gone',
  'snapshot.identity_mismatch',
  // A snapshot carrying this instance's snapshot identity with no live row (the reaper's sweep).
  'snapshot.orphan_deleted',
  // Workspaces (workspaces.ts; lease_id: the lease attaching it, or null; data.workspace: its id, name, principal).
  'workspace.created',
  'workspace.attached',
  // Deleted by a person (vmhub-server workspaces rm, the dashboard): data.outcome is what the provider answered.
  'workspace.deleted',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface NewEvent {
  lease_id: string | null;
  kind: EventKind;
  data?: Record<string, unknown>;
  /** Unique per event (the store call's token, plus what tells its events apart): an event whose token is already written is skipped, so a retried call never writes it twice. */
  token?: string;
}

const KINDS: ReadonlySet<string> = new Set(EVENT_KINDS);

export class EventKindError extends Error {
  readonly code = 'UNKNOWN_EVENT_KIND';
}

export function isEventKind(kind: string): kind is EventKind {
  return KINDS.has(kind);
}

export function assertEventKind(kind: string): asserts kind is EventKind {
  if (!KINDS.has(kind)) throw new EventKindError(`[vmhub] [store] unknown event kind "${kind}": events use a closed set of kinds (${EVENT_KINDS.join(', ')}); add it to EVENT_KINDS in @vmhub/store first`);
}

/** Append events in chunks of 500 rows per INSERT (one statement each), checking every kind first; events whose token is already written are skipped. */
export async function insertEvents(db: Kysely<Database>, actor: string, events: readonly NewEvent[]): Promise<void> {
  for (const e of events) assertEventKind(e.kind);
  const at = Date.now();
  for (let i = 0; i < events.length; i += 500) {
    const rows = events.slice(i, i + 500).map((e) => ({ at, lease_id: e.lease_id, actor, kind: e.kind, data: JSON.stringify(e.data ?? {}), token: e.token ?? null }));
    await db.insertInto('events').values(rows).onConflict((oc) => oc.column('token').doNothing()).execute();
  }
}

/** Events a store call wrote (tokens `<token>:…`), oldest first: how a retry learns what its lost first attempt did. */
export function eventsOfCall(db: Kysely<Database>, token: string): Promise<{ lease_id: string | null; kind: string; data: string }[]> {
  // ';' follows ':' in every collation the store uses (byte-wise): the range is exactly the prefix.
  return db.selectFrom('events').select(['lease_id', 'kind', 'data']).where('token', '>=', `${token}:`).where('token', '<', `${token};`).orderBy('id').execute();
}

export type EventRow = Selectable<EventTable>;

export interface EventFilter {
  lease_id?: string;
  kind?: EventKind;
  /** Events whose actor starts with this (`reaper:` = every reaper's). */
  actorPrefix?: string;
  /** Default 1000. */
  limit?: number;
  /** The newest first (the last `limit` events, as a log's tail reads them). Default: oldest first. */
  newestFirst?: boolean;
}

/** Events in the order they were written (newest first with `newestFirst`). */
export function listEvents(db: Kysely<Database>, filter: EventFilter): Promise<EventRow[]> {
  let q = db.selectFrom('events').selectAll();
  if (filter.lease_id !== undefined) q = q.where('lease_id', '=', filter.lease_id);
  if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
  // A range on the text (byte-wise: SQLite's BINARY, PostgreSQL's COLLATE "C") rather than LIKE: no escaping, no case folding.
  if (filter.actorPrefix !== undefined) q = q.where('actor', '>=', filter.actorPrefix).where('actor', '<', `${filter.actorPrefix}\u{10ffff}`);
  return q.orderBy('id', filter.newestFirst ? 'desc' : 'asc').limit(filter.limit ?? 1000).execute();
}
