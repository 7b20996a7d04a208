/**
 * A lease's screen mapping (table lease_screens, migration 10): how image coordinates of its
 * latest screenshot map to screen pixels (core's ScreenMapping, as JSON). An agent's input tools
 * take image coordinates; when server processes serve one lease in turn, the process that took
 * the screenshot writes its mapping here before answering, and every process reads it when it
 * binds a call — so a click through one lands where the screenshot through another showed it.
 * One statement each; the last screenshot's mapping wins.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export async function get(db: Kysely<Database>, leaseId: string): Promise<string | undefined> {
  const row = await db.selectFrom('lease_screens').select('mapping').where('lease_id', '=', leaseId).executeTakeFirst();
  return row?.mapping;
}

export async function put(db: Kysely<Database>, leaseId: string, mapping: string, at: number): Promise<void> {
  await db.insertInto('lease_screens').values({ lease_id: leaseId, mapping, updated_at: at })
    .onConflict((oc) => oc.column('lease_id').doUpdateSet({ mapping, updated_at: at })).execute();
}
