/**
 * @vmhub/store — vmhub's state on disk: leases (tombstoned, unique request_id), machines
 * (identity, provider, node, state) and an append-only event/audit log, in one SQLite file with
 * forward-only migrations. Safe for several processes (servers and the reaper) at once.
 */
export { Store, openStore } from './store.ts';
export type { StoreOptions, NewLease, LeaseFilter, LeaseRow, MachineRow, EventRow, LeasePatch } from './store.ts';
export type { Database, LeaseTable, MachineTable, EventTable } from './schema.ts';
export { MIGRATIONS, type Migration } from './migrations/index.ts';
export { migrate, StoreVersionError } from './migrate.ts';
export { defaultStatePath } from './paths.ts';
