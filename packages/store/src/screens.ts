/**
 * A lease's screen mapping (table lease_screens, migration 10): how image coordinates of its
 * latest screenshot map to screen pixels (core's ScreenMapping, as JSON). An agent's input tools
 * take image coordinates; when server processes serve one lease in turn, the process that took
 * the screenshot writes its mapping here before answering, and every process reads it when it
 * binds a call — so a click through one lands where the screenshot through another showed it.
 * One statement each; the last screenshot's mapping wins.
 */
import type { Kysely } from 'kysely';
import type { LeaseRow } from './leases.ts';
import { LEASE_COLUMNS, type Database } from './schema.ts';

/**
 * The lease row and its screen mapping in one statement (a LEFT JOIN): what every agent call
 * reads when it binds, so a call costs one round trip to the store, not two.
 */
export async function leaseWithScreen(db: Kysely<Database>, leaseId: string): Promise<{ lease: LeaseRow; screen: string | undefined } | undefined> {
  const row = await db.selectFrom('leases')
    .leftJoin('lease_screens', 'lease_screens.lease_id', 'leases.id')
    .select(LEASE_COLUMNS.map((c) => `leases.${c}` as const))
    .select('lease_screens.mapping as screen_mapping')
    .where('leases.id', '=', leaseId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { screen_mapping, ...lease } = row;
  return { lease, screen: screen_mapping ?? undefined };
}

export async function put(db: Kysely<Database>, leaseId: string, mapping: string, at: number): Promise<void> {
  await db.insertInto('lease_screens').values({ lease_id: leaseId, mapping, updated_at: at })
    .onConflict((oc) => oc.column('lease_id').doUpdateSet({ mapping, updated_at: at })).execute();
}
