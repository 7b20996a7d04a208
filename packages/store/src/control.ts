/**
 * Who drives a lease: the agent, or a person who took over in the live view (table
 * lease_control, migration 6). It lives in the store, not in a server's memory, so every process
 * of the store — a stdio server started by a desktop client, an HTTP server, another host on the
 * same PostgreSQL database — sees a take-over made through any of them on its next call, and the
 * hand-back note is delivered once, by whichever process serves the agent's next result.
 * Each change is one conditional statement; `token` makes a retried write (PostgreSQL, a lost
 * connection) recognise that its first attempt committed.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** A lease's control as stored: `since` (ms) undefined when the agent drives. */
export interface LeaseControlState {
  lease_id: string;
  /** When the person took over (ms); undefined: the agent drives. */
  since: number | undefined;
  /** The principal whose live view took over. */
  by: string | undefined;
  allowCommandsAndFiles: boolean;
  /** The hand-back note the agent has not received yet. */
  note: string | undefined;
}

export interface TakeoverResult {
  since: number;
  /** A new take-over (the lease was the agent's). */
  changed: boolean;
  /** It was already held, with the other allowance. */
  allowChanged: boolean;
}

function state(row: { lease_id: string; held_since: number | null; held_by: string | null; allow_commands_and_files: number; note: string | null }): LeaseControlState {
  return {
    lease_id: row.lease_id,
    since: row.held_since ?? undefined,
    by: row.held_since === null ? undefined : row.held_by ?? undefined,
    allowCommandsAndFiles: row.held_since !== null && row.allow_commands_and_files === 1,
    note: row.note ?? undefined,
  };
}

const COLUMNS = ['lease_id', 'held_since', 'held_by', 'allow_commands_and_files', 'note'] as const;

/** The controls of these leases (leases nobody ever took over have none). */
export async function controls(db: Kysely<Database>, leaseIds: readonly string[]): Promise<Map<string, LeaseControlState>> {
  if (leaseIds.length === 0) return new Map();
  const rows = await db.selectFrom('lease_control').select(COLUMNS).where('lease_id', 'in', [...leaseIds]).execute();
  return new Map(rows.map((r) => [r.lease_id, state(r)]));
}

/** Whether a person holds the lease (the router's per-call check: one primary-key lookup). */
export async function held(db: Kysely<Database>, leaseId: string): Promise<LeaseControlState | undefined> {
  const row = await db.selectFrom('lease_control').select(COLUMNS).where('lease_id', '=', leaseId).where('held_since', 'is not', null).executeTakeFirst();
  return row ? state(row) : undefined;
}

/**
 * Take over (idempotent): a lease already held keeps its first take-over's time and holder and
 * gets the allowance given now (the person may change their mind while holding).
 */
export async function takeover(db: Kysely<Database>, leaseId: string, by: string, allow: boolean, token: string, now: number): Promise<TakeoverResult> {
  const before = await held(db, leaseId);
  const flag = allow ? 1 : 0;
  const row = await db.insertInto('lease_control')
    .values({ lease_id: leaseId, held_since: now, held_by: by, held_token: token, allow_commands_and_files: flag, note: null, note_token: null, updated_at: now })
    .onConflict((oc) => oc.column('lease_id').doUpdateSet({
      held_since: sql<number>`coalesce(lease_control.held_since, excluded.held_since)`,
      held_by: sql<string>`case when lease_control.held_since is null then excluded.held_by else lease_control.held_by end`,
      held_token: sql<string>`case when lease_control.held_since is null then excluded.held_token else lease_control.held_token end`,
      allow_commands_and_files: flag,
      updated_at: now,
    }))
    .returning(['held_since', 'held_token'])
    .executeTakeFirstOrThrow();
  const changed = row.held_token === token;
  return { since: Number(row.held_since), changed, allowChanged: !changed && before !== undefined && before.allowCommandsAndFiles !== allow };
}

/** Back to the agent; the note (when given) waits for the agent's next result. `changed`: a person held it. */
export async function handback(db: Kysely<Database>, leaseId: string, note: string | undefined, now: number): Promise<{ changed: boolean }> {
  const set = { held_since: null, held_by: null, held_token: null, allow_commands_and_files: 0, updated_at: now };
  const r = await db.updateTable('lease_control')
    .set(note === undefined ? set : { ...set, note, note_token: null })
    .where('lease_id', '=', leaseId).where('held_since', 'is not', null)
    .executeTakeFirst();
  return { changed: Number(r.numUpdatedRows) > 0 };
}

/**
 * The pending note, consumed: of two processes taking it at once, one gets it. A retry whose
 * first attempt took it (note_token is ours) answers the note that attempt read.
 */
export async function takeNote(db: Kysely<Database>, leaseId: string, token: string, attempt: number, seen: { note?: string }): Promise<string | undefined> {
  if (attempt > 0 && seen.note !== undefined) {
    const mine = await db.selectFrom('lease_control').select('lease_id').where('lease_id', '=', leaseId).where('note_token', '=', token).executeTakeFirst();
    if (mine) return seen.note;
  }
  const row = await db.selectFrom('lease_control').select('note').where('lease_id', '=', leaseId).where('note', 'is not', null).executeTakeFirst();
  if (!row?.note) return undefined;
  seen.note = row.note;
  const r = await db.updateTable('lease_control').set({ note: null, note_token: token }).where('lease_id', '=', leaseId).where('note', '=', row.note).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0 ? row.note : undefined;
}
