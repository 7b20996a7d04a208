/**
 * Workspaces (table workspaces, migration 9): a named volume per (principal, name) that outlives
 * the leases it is attached to. The lock is the row's `holder_lease`, taken in one UPDATE that
 * succeeds only when the workspace is free; it needs no release step: a workspace is held while
 * its holder lease has not ended, or has ended but its machine is not yet destroyed (a machine
 * row neither destroyed nor mismatch). So a lease ended any way — release, expiry and reap,
 * failure, the reaper with the server down — frees it the moment its machine is gone, and a
 * workspace is never opened by two machines at once. Deleting is a person's act: `deleting`
 * under the same "free" rule, then the row is removed with a `workspace.deleted` event. The
 * Store runs each function with retries.
 */
import type { ExpressionBuilder, ExpressionWrapper, Kysely, Selectable, SqlBool } from 'kysely';
import { insertEvents } from './events.ts';
import { FINAL_STATUSES, SETTLED_MACHINE_STATES } from './lifecycle.ts';
import type { Database, WorkspaceTable } from './schema.ts';

export type WorkspaceState = 'ready' | 'deleting';

/** A workspaces row as the store answers it; `holder_lease` only while that lease holds it. */
export type WorkspaceRow = Omit<WorkspaceTable, 'holder_lease' | 'state'> & { holder_lease: string | undefined; state: WorkspaceState };

export type NewWorkspace = Pick<WorkspaceRow, 'id' | 'principal' | 'name' | 'provider' | 'identity' | 'template' | 'path' | 'created_at'>;

/** The workspace is held by another lease: LOCK_CONTENTION naming it. */
export class WorkspaceHeldError extends Error {
  override readonly name = 'WorkspaceHeldError';
  readonly code = 'WORKSPACE_HELD';
  readonly workspace: string;
  /** The lease holding it; undefined while a person is deleting it. */
  readonly holder: string | undefined;
  constructor(workspace: string, holder: string | undefined) {
    super(`[vmhub] [store] workspace ${workspace} is ${holder ? `attached to lease ${holder}` : 'being deleted'}`);
    this.workspace = workspace;
    this.holder = holder;
  }
}

function fromRow(r: Selectable<WorkspaceTable>, held: boolean): WorkspaceRow {
  return {
    id: r.id, principal: r.principal, name: r.name, provider: r.provider, identity: r.identity, template: r.template, path: r.path,
    state: r.state as WorkspaceState, holder_lease: held && r.holder_lease ? r.holder_lease : undefined,
    bytes: Number(r.bytes), created_at: Number(r.created_at), used_at: Number(r.used_at),
  };
}

/** True when the row's holder lease (if any) no longer holds it: ended, and its machine gone. */
function free(eb: ExpressionBuilder<Database, 'workspaces'>): ExpressionWrapper<Database, 'workspaces', SqlBool> {
  return eb.or([
    eb('holder_lease', 'is', null),
    eb.not(eb.exists(eb.selectFrom('leases as l').select('l.id').whereRef('l.id', '=', 'workspaces.holder_lease').where((l) => l.or([
      l('l.status', 'not in', [...FINAL_STATUSES]),
      l.exists(l.selectFrom('machines as m').select('m.lease_id').whereRef('m.lease_id', '=', 'l.id').where('m.state', 'not in', [...SETTLED_MACHINE_STATES])),
    ])))),
  ]);
}

/** The rows with whether each is free, in one query (SQLite answers 0/1, PostgreSQL a boolean). */
function selectRows(db: Kysely<Database>) {
  return db.selectFrom('workspaces').selectAll().select((eb) => free(eb).as('free'));
}

function decode(r: Selectable<WorkspaceTable> & { free: unknown }): WorkspaceRow {
  return fromRow(r, !r.free);
}

export async function get(db: Kysely<Database>, principal: string, name: string): Promise<WorkspaceRow | undefined> {
  const row = await selectRows(db).where('principal', '=', principal).where('name', '=', name).executeTakeFirst();
  return row && decode(row);
}

export async function getById(db: Kysely<Database>, id: string): Promise<WorkspaceRow | undefined> {
  const row = await selectRows(db).where('id', '=', id).executeTakeFirst();
  return row && decode(row);
}

/** The workspace `leaseId` was attached to (held still, or freed when it ended), if any. */
export async function ofLease(db: Kysely<Database>, leaseId: string): Promise<WorkspaceRow | undefined> {
  const row = await selectRows(db).where('holder_lease', '=', leaseId).executeTakeFirst();
  return row && decode(row);
}

/** By principal then name (all principals when undefined). */
export async function list(db: Kysely<Database>, principal?: string, limit = 1000): Promise<WorkspaceRow[]> {
  let q = selectRows(db);
  if (principal !== undefined) q = q.where('principal', '=', principal);
  return (await q.orderBy('principal').orderBy('name').limit(limit).execute()).map(decode);
}

/** A principal's workspaces and their bytes as last measured. */
export async function usage(db: Kysely<Database>, principal: string): Promise<{ count: number; bytes: number }> {
  const row = await db.selectFrom('workspaces')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.coalesce(eb.fn.sum<number>('bytes'), eb.lit(0)).as('bytes')])
    .where('principal', '=', principal).executeTakeFirstOrThrow();
  return { count: Number(row.n), bytes: Number(row.bytes) };
}

/** Insert a new workspace with its event; the existing one when (principal, name) is taken (created false). */
export async function insert(db: Kysely<Database>, w: NewWorkspace, actor: string, token: string): Promise<{ workspace: WorkspaceRow; created: boolean }> {
  const created = await db.transaction().execute(async (tx) => {
    const done = await tx.insertInto('workspaces').values({ ...w, state: 'ready', holder_lease: null, bytes: 0, used_at: w.created_at })
      .onConflict((oc) => oc.columns(['principal', 'name']).doNothing()).executeTakeFirst();
    if (Number(done.numInsertedOrUpdatedRows ?? 0) === 0) return false;
    await insertEvents(tx, actor, [{ lease_id: null, kind: 'workspace.created', data: { workspace: w.id, name: w.name, principal: w.principal, provider: w.provider }, token: `${token}:created` }]);
    return true;
  });
  const row = (await get(db, w.principal, w.name))!;
  return { workspace: row, created: created || row.id === w.id };
}

/**
 * Attach the workspace to `leaseId` (inside the lease's insert transaction): one UPDATE that
 * succeeds only when it is ready and free (or already this lease's). Throws WorkspaceHeldError
 * naming the holder otherwise, which rolls the lease's insert back with it.
 */
export async function attach(db: Kysely<Database>, id: string, leaseId: string, actor: string, token: string, now: number): Promise<void> {
  const done = await db.updateTable('workspaces').set({ holder_lease: leaseId, used_at: now })
    .where('id', '=', id).where('state', '=', 'ready')
    .where((eb) => eb.or([free(eb), eb('holder_lease', '=', leaseId)]))
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) === 0) {
    const row = await db.selectFrom('workspaces').select(['name', 'holder_lease', 'state']).where('id', '=', id).executeTakeFirst();
    throw new WorkspaceHeldError(row?.name ?? id, row?.state === 'deleting' ? undefined : row?.holder_lease ?? undefined);
  }
  await insertEvents(db, actor, [{ lease_id: leaseId, kind: 'workspace.attached', data: { workspace: id }, token: `${token}:attached` }]);
}

/** Record the bytes measured now. */
export async function setBytes(db: Kysely<Database>, id: string, bytes: number): Promise<void> {
  await db.updateTable('workspaces').set({ bytes }).where('id', '=', id).execute();
}

/**
 * Begin deleting: ready (or a deletion that stopped half way) → deleting, only while no lease
 * holds it. Throws WorkspaceHeldError naming the holder otherwise; undefined when it is gone.
 */
export async function beginDelete(db: Kysely<Database>, id: string): Promise<WorkspaceRow | undefined> {
  const row = await db.updateTable('workspaces').set({ state: 'deleting' }).where('id', '=', id)
    .where((eb) => free(eb)).returningAll().executeTakeFirst();
  if (row) return fromRow(row, false);
  const held = await getById(db, id);
  if (held) throw new WorkspaceHeldError(held.name, held.holder_lease);
  return undefined;
}

/** The provider deleted it (or found it gone): the row goes, with its event. */
export async function finishDelete(db: Kysely<Database>, id: string, actor: string, outcome: string, token: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const row = await tx.deleteFrom('workspaces').where('id', '=', id).where('state', '=', 'deleting').returning(['name', 'principal', 'identity']).executeTakeFirst();
    if (row) await insertEvents(tx, actor, [{ lease_id: null, kind: 'workspace.deleted', data: { workspace: id, name: row.name, principal: row.principal, identity: row.identity, outcome }, token: `${token}:deleted` }]);
  });
}

/** The deletion failed: back to ready, so it can be attached or deleted again. */
export async function abortDelete(db: Kysely<Database>, id: string): Promise<void> {
  await db.updateTable('workspaces').set({ state: 'ready' }).where('id', '=', id).where('state', '=', 'deleting').execute();
}
