/**
 * Step numbers of lease recordings (table recording_steps, migration 10). A recording is files in
 * the server's recordings folder; when several server processes serve one lease in turn (HTTP
 * servers behind one balancer, a restart), each takes its steps' numbers here, in one statement,
 * so no two steps share a number and no frame file is written twice under one name. Numbers of a
 * retried statement whose first attempt committed are skipped: a gap, never a repeat.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Take `n` numbers for the lease's next steps; resolves to the last (the range is last-n+1..last).
 * `floor`: the steps a recording already holds when its lease has no row yet (written before
 * numbers were kept here), so numbering continues after them.
 */
export async function take(db: Kysely<Database>, leaseId: string, n: number, floor: number): Promise<number> {
  const row = await db.insertInto('recording_steps').values({ lease_id: leaseId, steps: floor + n })
    .onConflict((oc) => oc.column('lease_id').doUpdateSet({ steps: sql<number>`recording_steps.steps + ${n}` }))
    .returning('steps').executeTakeFirstOrThrow();
  return Number(row.steps);
}
