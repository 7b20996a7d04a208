/**
 * The machine rows: one per lease that reached its provider, with the provider's handle and the
 * machine's state (machine states: lifecycle.ts). The Store runs each with retries.
 */
import type { Kysely, Selectable } from 'kysely';
import type { MachineState } from './lifecycle.ts';
import type { Database, MachineTable } from './schema.ts';

export type MachineRow = Selectable<MachineTable>;

/** Insert or update a lease's machine row (an upsert: a retry writes the same row). */
export function putMachine(db: Kysely<Database>, machine: Omit<MachineRow, 'created_at' | 'updated_at'>): Promise<MachineRow> {
  const now = Date.now();
  return db
    .insertInto('machines')
    .values({ ...machine, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('lease_id').doUpdateSet({ external_id: machine.external_id, node: machine.node, state: machine.state, details: machine.details, updated_at: now }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function getMachine(db: Kysely<Database>, leaseId: string): Promise<MachineRow | undefined> {
  return db.selectFrom('machines').selectAll().where('lease_id', '=', leaseId).executeTakeFirst();
}

export function setMachineState(db: Kysely<Database>, leaseId: string, state: MachineState): Promise<MachineRow | undefined> {
  return db.updateTable('machines').set({ state, updated_at: Date.now() }).where('lease_id', '=', leaseId).returningAll().executeTakeFirst();
}

export function listMachines(db: Kysely<Database>, filter: { state?: readonly MachineState[] }): Promise<MachineRow[]> {
  let q = db.selectFrom('machines').selectAll();
  if (filter.state) q = q.where('state', 'in', [...filter.state]);
  return q.execute();
}
