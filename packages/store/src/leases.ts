/**
 * The lease rows: insert (idempotent by the principal's request_id), read, conditional updates and
 * listings. Each function is one statement (or one transaction) on the handle it is given; the
 * Store runs it with retries (retry.ts) and a write token, so a retried write whose first attempt
 * committed is found by that token (`ownWrite`) and not written twice.
 */
import type { Kysely, RawBuilder, Selectable, Updateable } from 'kysely';
import { insertEvents } from './events.ts';
import type { LeaseStatus } from './lifecycle.ts';
import { LEASE_COLUMNS, type Database, type LeaseTable } from './schema.ts';

export type LeaseRow = Selectable<LeaseTable>;

/**
 * Fields a caller may change on a lease. Never `status`: that moves only through `transition()`
 * (and the store's own sweeps and teardown records). `updated_at` is set to now unless given.
 */
export type LeasePatch = Omit<Updateable<LeaseTable>, 'id' | 'request_id' | 'created_at' | 'status' | 'write_token'>;

/**
 * A lease to insert: the table's columns minus bookkeeping the store fills in itself.
 * `principal`: who holds it — the authenticated caller, POOL_PRINCIPAL for a warm pool's
 * machine, REAPER_PRINCIPAL for the reaper's orphan tombstones; its request_id is unique among
 * that principal's leases.
 */
export type NewLease = Omit<LeaseTable, 'updated_at' | 'stages' | 'error_code' | 'error_message' | 'claimed_by' | 'claim_expires_at' | 'principal' | 'write_token'> & { stages?: string; principal: string };

export interface LeaseFilter {
  status?: readonly LeaseStatus[];
  /** expires_at < this */
  expiresBefore?: number;
  /** max_expires_at < this */
  maxExpiresBefore?: number;
  /** deadline_at < this */
  deadlineBefore?: number;
  owner?: string;
  /** Leases created by this principal (the HTTP token's, or the local user on stdio). */
  principal?: string;
  /** Newest first (created_at descending); default oldest first. */
  newestFirst?: boolean;
  limit?: number;
}

/** The row of `id` if our write `token` is on it: a retried write's first attempt committed. */
export function ownWrite(db: Kysely<Database>, id: string, token: string): Promise<LeaseRow | undefined> {
  return db.selectFrom('leases').select(LEASE_COLUMNS).where('id', '=', id).where('write_token', '=', token).executeTakeFirst();
}

/**
 * Insert the lease unless its principal's request_id is taken (undefined then); with `event`,
 * its `lease.created` event commits with the row, or neither does (call inside a transaction).
 */
export async function insertLease(db: Kysely<Database>, lease: NewLease, token: string, event?: { actor: string; data?: Record<string, unknown> }): Promise<LeaseRow | undefined> {
  const row = await db
    .insertInto('leases')
    .values({ ...lease, stages: lease.stages ?? '[]', updated_at: Date.now(), error_code: null, error_message: null, claimed_by: null, claim_expires_at: null, write_token: token })
    // request_id is unique per principal (migration 5).
    .onConflict((oc) => oc.columns(['principal', 'request_id']).doNothing())
    .returning(LEASE_COLUMNS)
    .executeTakeFirst();
  if (row && event) await insertEvents(db, event.actor, [{ lease_id: lease.id, kind: 'lease.created', data: event.data ?? {}, token: `${token}:${lease.id}` }]);
  return row;
}

export function getLease(db: Kysely<Database>, id: string): Promise<LeaseRow | undefined> {
  return db.selectFrom('leases').select(LEASE_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** The lease a principal's request_id names (another principal's lease under the same id is never found). */
export function leaseByRequest(db: Kysely<Database>, requestId: string, principal: string): Promise<LeaseRow | undefined> {
  return db.selectFrom('leases').select(LEASE_COLUMNS).where('request_id', '=', requestId).where('principal', '=', principal).executeTakeFirst();
}

/**
 * Set `patch` (and, with `status`, the new status) on the lease if it is in one of `inStatus`
 * (any when omitted); undefined when it was not. The caller checked the transition.
 */
export async function updateLease(db: Kysely<Database>, id: string, patch: LeasePatch & { status?: LeaseStatus }, inStatus: readonly LeaseStatus[] | undefined, token: string, attempt: number): Promise<LeaseRow | undefined> {
  let q = db.updateTable('leases').set({ updated_at: Date.now(), ...patch, write_token: token }).where('id', '=', id);
  if (inStatus) q = q.where('status', 'in', [...inStatus]);
  const row = await q.returning(LEASE_COLUMNS).executeTakeFirst();
  return row ?? (attempt > 0 ? ownWrite(db, id, token) : undefined);
}

/** Leases matching `filter`, by creation time; `insertionOrder` breaks ties within a millisecond. */
export function listLeases(db: Kysely<Database>, filter: LeaseFilter, insertionOrder: RawBuilder<unknown>): Promise<LeaseRow[]> {
  let q = db.selectFrom('leases').select(LEASE_COLUMNS);
  if (filter.status) q = q.where('status', 'in', [...filter.status]);
  if (filter.expiresBefore !== undefined) q = q.where('expires_at', '<', filter.expiresBefore);
  if (filter.maxExpiresBefore !== undefined) q = q.where('max_expires_at', '<', filter.maxExpiresBefore);
  if (filter.deadlineBefore !== undefined) q = q.where('deadline_at', '<', filter.deadlineBefore);
  if (filter.owner !== undefined) q = q.where('owner', '=', filter.owner);
  if (filter.principal !== undefined) q = q.where('principal', '=', filter.principal);
  const direction = filter.newestFirst ? 'desc' : 'asc';
  q = q.orderBy('created_at', direction).orderBy(insertionOrder, direction);
  if (filter.limit !== undefined) q = q.limit(filter.limit);
  return q.execute();
}

export async function countLeases(db: Kysely<Database>, filter: { status: readonly LeaseStatus[]; owner?: string; principal?: string }): Promise<number> {
  let q = db.selectFrom('leases').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', [...filter.status]);
  if (filter.owner !== undefined) q = q.where('owner', '=', filter.owner);
  if (filter.principal !== undefined) q = q.where('principal', '=', filter.principal);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Is there anything a reaper must watch? Leases not yet final (provisioning, starting, ready,
 * releasing, expired), machines not yet destroyed (a failed lease's machine included), or
 * snapshots not yet deleted.
 */
export async function hasWork(db: Kysely<Database>): Promise<boolean> {
  const lease = await db.selectFrom('leases').select('id').where('status', 'in', ['provisioning', 'starting', 'ready', 'releasing', 'expired']).limit(1).executeTakeFirst();
  if (lease) return true;
  const machine = await db.selectFrom('machines').select('lease_id').where('state', 'not in', ['destroyed', 'mismatch']).limit(1).executeTakeFirst();
  if (machine) return true;
  // A snapshot kept past its lease is deleted by the reaper at expiry, with or without a server.
  const snapshot = await db.selectFrom('snapshots').select('id').where('state', 'in', ['ready', 'deleting']).limit(1).executeTakeFirst();
  return snapshot !== undefined;
}
