/**
 * Snapshots of lease machines (table snapshots, migration 8): a row per snapshot a provider made
 * for a principal, kept past its source lease until deleted or `expires_at` passes. Deleting is a
 * claimed transition like a machine's teardown: `ready` (or `deleting` whose claim lapsed) →
 * `deleting` under one holder's claim, then `deleted` with the provider's answer — so a server and
 * the reaper never both delete one, and a holder that died is taken over once its claim lapses.
 * Rows are tombstoned, never removed. The Store runs each function with retries.
 */
import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import { insertEvents, type EventKind } from './events.ts';
import type { Database, SnapshotTable } from './schema.ts';

export type SnapshotState = 'ready' | 'deleting' | 'deleted';
/** States in which the snapshot still occupies the provider's disk. */
export const LIVE_SNAPSHOT_STATES: readonly SnapshotState[] = ['ready', 'deleting'];
export type SnapshotOutcome = 'destroyed' | 'already_gone' | 'identity_mismatch';

/** Columns the table holds as null and a row as undefined. */
type AbsentAsUndefined = 'node' | 'name' | 'claimed_by' | 'claim_expires_at' | 'deleted_at' | 'last_error';

/** A snapshots row as the store answers it: the table's columns (schema.ts), decoded. */
export type SnapshotRow = Omit<SnapshotTable, AbsentAsUndefined | 'details' | 'memory' | 'state' | 'outcome'>
  & { [K in AbsentAsUndefined]: NonNullable<SnapshotTable[K]> | undefined }
  & { details: Record<string, unknown>; memory: boolean; state: SnapshotState; outcome: SnapshotOutcome | undefined };

export type NewSnapshot = Pick<SnapshotRow, 'id' | 'principal' | 'lease_id' | 'template' | 'provider' | 'identity' | 'external_id' | 'details' | 'memory' | 'size_bytes' | 'created_at' | 'expires_at'> & { node?: string; name?: string };

export function fromRow(r: Selectable<SnapshotTable>): SnapshotRow {
  return {
    id: r.id, principal: r.principal, lease_id: r.lease_id, template: r.template, provider: r.provider,
    identity: r.identity, external_id: r.external_id, node: r.node ?? undefined,
    details: JSON.parse(r.details) as Record<string, unknown>,
    memory: r.memory === 1, size_bytes: Number(r.size_bytes), name: r.name ?? undefined,
    created_at: Number(r.created_at), expires_at: Number(r.expires_at), state: r.state as SnapshotState,
    claimed_by: r.claimed_by ?? undefined, claim_expires_at: r.claim_expires_at === null ? undefined : Number(r.claim_expires_at),
    deleted_at: r.deleted_at === null ? undefined : Number(r.deleted_at), outcome: (r.outcome ?? undefined) as SnapshotOutcome | undefined,
    attempts: r.attempts, last_error: r.last_error ?? undefined,
  };
}

/**
 * What a provider needs to find the snapshot again: its identity (read back before a delete) and
 * handle. Structurally @vmhub/core's SnapshotRef (the store depends on nothing of ours), so it goes
 * straight to `provider.restore()`, `deleteSnapshot()` or a fork's create — for the server and the
 * reaper alike.
 */
export function snapshotRef(row: Pick<SnapshotRow, 'identity' | 'external_id' | 'node' | 'details'>): { identity: string; external_id: string; node?: string; details: Record<string, unknown> } {
  return { identity: row.identity, external_id: row.external_id, ...(row.node ? { node: row.node } : {}), details: row.details };
}

/** Insert a ready snapshot with its `snapshot.created` event (one transaction; a retry finds its own row by id). */
export async function insert(db: Kysely<Database>, s: NewSnapshot, actor: string, token: string): Promise<SnapshotRow> {
  await db.transaction().execute(async (tx) => {
    const done = await tx.insertInto('snapshots').values({
      ...s, node: s.node ?? null, name: s.name ?? null, details: JSON.stringify(s.details), memory: s.memory ? 1 : 0,
      state: 'ready', claimed_by: null, claim_expires_at: null, deleted_at: null, outcome: null, attempts: 0, last_error: null,
    }).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
    if (Number(done.numInsertedOrUpdatedRows ?? 0) > 0) {
      await insertEvents(tx, actor, [{ lease_id: s.lease_id, kind: 'snapshot.created', data: { snapshot: s.id, principal: s.principal, memory: s.memory, size_bytes: s.size_bytes, ...(s.name ? { name: s.name } : {}) }, token: `${token}:created` }]);
    }
  });
  return (await get(db, s.id))!;
}

export async function get(db: Kysely<Database>, id: string): Promise<SnapshotRow | undefined> {
  const row = await db.selectFrom('snapshots').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

export interface SnapshotFilter {
  principal?: string;
  lease_id?: string;
  state?: readonly SnapshotState[];
  /** Only those not expired at this time (ms). */
  unexpiredAt?: number;
}

/** Newest first. */
export async function list(db: Kysely<Database>, f: SnapshotFilter, limit = 1000): Promise<SnapshotRow[]> {
  let q = db.selectFrom('snapshots').selectAll();
  if (f.principal !== undefined) q = q.where('principal', '=', f.principal);
  if (f.lease_id !== undefined) q = q.where('lease_id', '=', f.lease_id);
  if (f.state) q = q.where('state', 'in', [...f.state]);
  if (f.unexpiredAt !== undefined) q = q.where('expires_at', '>', f.unexpiredAt);
  return (await q.orderBy('created_at', 'desc').orderBy('id').limit(limit).execute()).map(fromRow);
}

/** Live snapshots (ready or deleting) and their bytes: of one principal, or of the whole instance. */
export async function usage(db: Kysely<Database>, principal?: string): Promise<{ count: number; bytes: number }> {
  let q = db.selectFrom('snapshots')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.coalesce(eb.fn.sum<number>('size_bytes'), eb.lit(0)).as('bytes')])
    .where('state', 'in', [...LIVE_SNAPSHOT_STATES]);
  if (principal !== undefined) q = q.where('principal', '=', principal);
  const row = await q.executeTakeFirstOrThrow();
  return { count: Number(row.n), bytes: Number(row.bytes) };
}

/**
 * What a deletion may start or take over: a `ready` snapshot (only once expired at `due`, when
 * given), or a `deleting` one whose claim lapsed at `now`. The reaper's due list and its claims
 * use the same rule, so what it lists it can claim.
 */
function deletable(eb: ExpressionBuilder<Database, 'snapshots'>, now: number, due: number | undefined): Expression<SqlBool> {
  const ready = eb('state', '=', 'ready');
  return eb.or([
    due === undefined ? ready : eb.and([ready, eb('expires_at', '<=', due)]),
    eb.and([eb('state', '=', 'deleting'), eb('claim_expires_at', '<', now)]),
  ]);
}

/**
 * Claim a snapshot for deletion: `ready` (any time when `due` is undefined, else only once expired
 * at `due`), or `deleting` whose claim lapsed or is already `by`'s. Undefined: someone else holds it,
 * or it is gone.
 */
export async function claim(db: Kysely<Database>, id: string, by: string, until: number, now: number, due?: number): Promise<SnapshotRow | undefined> {
  const row = await db.updateTable('snapshots')
    .set({ state: 'deleting', claimed_by: by, claim_expires_at: until })
    .where('id', '=', id)
    .where((eb) => eb.or([deletable(eb, now, due), eb.and([eb('state', '=', 'deleting'), eb('claimed_by', '=', by)])]))
    .returningAll().executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

const OUTCOME_EVENT: Record<SnapshotOutcome, EventKind> = { destroyed: 'snapshot.deleted', already_gone: 'snapshot.already_gone', identity_mismatch: 'snapshot.identity_mismatch' };

/** The holder's delete finished: `deleted`, with the provider's answer and its event. False: the claim was not `by`'s. */
export async function finish(db: Kysely<Database>, id: string, by: string, outcome: SnapshotOutcome, now: number, token: string, reason: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const row = await tx.updateTable('snapshots').set({ state: 'deleted', deleted_at: now, outcome, claimed_by: null, claim_expires_at: null })
      .where('id', '=', id).where('state', '=', 'deleting').where('claimed_by', '=', by).returning(['lease_id', 'identity']).executeTakeFirst();
    if (!row) return false;
    await insertEvents(tx, by, [{ lease_id: row.lease_id, kind: OUTCOME_EVENT[outcome], data: { snapshot: id, identity: row.identity, reason }, token: `${token}:deleted` }]);
    return true;
  });
}

/** The holder's delete failed: counted, the claim lapses now so the next pass (or call) retries. */
export async function failed(db: Kysely<Database>, id: string, by: string, message: string, now: number): Promise<void> {
  await db.updateTable('snapshots').set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: message.slice(0, 500), claim_expires_at: now - 1 }))
    .where('id', '=', id).where('state', '=', 'deleting').where('claimed_by', '=', by).execute();
}

/** What a reaper pass must delete: ready ones expired at `now`, and deletions whose claim lapsed. */
export async function due(db: Kysely<Database>, now: number, limit: number): Promise<SnapshotRow[]> {
  return (await db.selectFrom('snapshots').selectAll()
    .where((eb) => deletable(eb, now, now))
    .orderBy('expires_at').limit(limit).execute()).map(fromRow);
}

/** Snapshot identities the store still counts as live (the orphan sweep leaves these alone). */
export async function liveIdentities(db: Kysely<Database>, identities: readonly string[]): Promise<Set<string>> {
  if (identities.length === 0) return new Set();
  const rows = await db.selectFrom('snapshots').select('identity').where('identity', 'in', [...identities]).where('state', 'in', [...LIVE_SNAPSHOT_STATES]).execute();
  return new Set(rows.map((r) => r.identity));
}
