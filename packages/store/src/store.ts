/**
 * The store: one SQLite file (WAL, busy timeout) shared by every vmhub process on a host —
 * several stdio servers and the reaper. Every state change is a single conditional UPDATE
 * (`... WHERE status IN (...) RETURNING *`), so two processes can never both win a transition.
 * Lease rows are never deleted: finished leases stay as tombstones, so an old request_id can
 * never mint a new machine.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type Selectable, type Updateable } from 'kysely';
import { migrate } from './migrate.ts';
import type { Database, EventTable, LeaseTable, MachineTable } from './schema.ts';

export type LeaseRow = Selectable<LeaseTable>;
export type MachineRow = Selectable<MachineTable>;
export type EventRow = Selectable<EventTable>;
export type LeasePatch = Omit<Updateable<LeaseTable>, 'id' | 'request_id' | 'created_at'>;

export interface StoreOptions {
  /** Path of the SQLite file (created with its directory). `:memory:` for tests. */
  path: string;
  /** Milliseconds a writer waits for another process's lock before failing. Default 10 000. */
  busyTimeoutMs?: number;
  /** Open without migrating (read-only tools). Default false. */
  readonly?: boolean;
}

/** A lease as inserted: the table's columns minus bookkeeping the store fills in itself. */
export type NewLease = Omit<LeaseTable, 'updated_at' | 'stages' | 'error_code' | 'error_message' | 'claimed_by' | 'claim_expires_at'> & { stages?: string };

export interface LeaseFilter {
  status?: readonly string[];
  /** expires_at < this */
  expiresBefore?: number;
  /** max_expires_at < this */
  maxExpiresBefore?: number;
  /** deadline_at < this */
  deadlineBefore?: number;
  owner?: string;
  limit?: number;
}

export class Store {
  readonly path: string;
  readonly db: Kysely<Database>;
  readonly sqlite: BetterSqlite3.Database;

  constructor(options: StoreOptions) {
    this.path = options.path;
    if (options.path !== ':memory:') ensureDir(dirname(options.path));
    this.sqlite = new BetterSqlite3(options.path, { readonly: options.readonly ?? false });
    const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
    this.sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
    if (!options.readonly) {
      enableWal(this.sqlite, busyTimeoutMs);
      this.sqlite.pragma('synchronous = NORMAL');
      this.sqlite.pragma('foreign_keys = ON');
      migrate(this.sqlite);
    }
    this.db = new Kysely<Database>({ dialect: new SqliteDialect({ database: this.sqlite }) });
  }

  /** Insert a lease unless its request_id is taken; either way return the row that owns it. */
  async createLease(lease: NewLease): Promise<{ lease: LeaseRow; created: boolean }> {
    const now = Date.now();
    const inserted = await this.db
      .insertInto('leases')
      .values({ ...lease, stages: lease.stages ?? '[]', updated_at: now, error_code: null, error_message: null, claimed_by: null, claim_expires_at: null })
      .onConflict((oc) => oc.column('request_id').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { lease: inserted, created: true };
    const existing = await this.getLeaseByRequest(lease.request_id);
    if (!existing) throw new Error(`[vmhub] [store] lease insert for request_id ${lease.request_id} neither inserted nor found`);
    return { lease: existing, created: false };
  }

  getLease(id: string): Promise<LeaseRow | undefined> {
    return this.db.selectFrom('leases').selectAll().where('id', '=', id).executeTakeFirst();
  }

  getLeaseByRequest(requestId: string): Promise<LeaseRow | undefined> {
    return this.db.selectFrom('leases').selectAll().where('request_id', '=', requestId).executeTakeFirst();
  }

  /** Atomically move a lease from one of `from` to `to`; undefined if it was not in `from`. */
  transition(id: string, from: readonly string[], to: string, patch: LeasePatch = {}): Promise<LeaseRow | undefined> {
    return this.db
      .updateTable('leases')
      .set({ ...patch, status: to, updated_at: Date.now() })
      .where('id', '=', id)
      .where('status', 'in', [...from])
      .returningAll()
      .executeTakeFirst();
  }

  /** Update fields of a lease that is in one of `inStatus` (any when omitted). */
  updateLease(id: string, patch: LeasePatch, inStatus?: readonly string[]): Promise<LeaseRow | undefined> {
    let q = this.db.updateTable('leases').set({ ...patch, updated_at: Date.now() }).where('id', '=', id);
    if (inStatus) q = q.where('status', 'in', [...inStatus]);
    return q.returningAll().executeTakeFirst();
  }

  /**
   * Claim a lease for exclusive work (teardown) until `until`: succeeds when nobody holds an
   * unexpired claim. A crashed claimant's claim lapses, so the work is picked up again.
   */
  claim(id: string, by: string, until: number, inStatus: readonly string[]): Promise<LeaseRow | undefined> {
    const now = Date.now();
    return this.db
      .updateTable('leases')
      .set({ claimed_by: by, claim_expires_at: until, updated_at: now })
      .where('id', '=', id)
      .where('status', 'in', [...inStatus])
      .where((eb) => eb.or([eb('claim_expires_at', 'is', null), eb('claim_expires_at', '<', now), eb('claimed_by', '=', by)]))
      .returningAll()
      .executeTakeFirst();
  }

  listLeases(filter: LeaseFilter = {}): Promise<LeaseRow[]> {
    let q = this.db.selectFrom('leases').selectAll();
    if (filter.status) q = q.where('status', 'in', [...filter.status]);
    if (filter.expiresBefore !== undefined) q = q.where('expires_at', '<', filter.expiresBefore);
    if (filter.maxExpiresBefore !== undefined) q = q.where('max_expires_at', '<', filter.maxExpiresBefore);
    if (filter.deadlineBefore !== undefined) q = q.where('deadline_at', '<', filter.deadlineBefore);
    if (filter.owner !== undefined) q = q.where('owner', '=', filter.owner);
    q = q.orderBy('created_at');
    if (filter.limit !== undefined) q = q.limit(filter.limit);
    return q.execute();
  }

  async countLeases(filter: { status: readonly string[]; owner?: string }): Promise<number> {
    let q = this.db.selectFrom('leases').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', [...filter.status]);
    if (filter.owner !== undefined) q = q.where('owner', '=', filter.owner);
    const row = await q.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async putMachine(machine: Omit<MachineRow, 'created_at' | 'updated_at'>): Promise<MachineRow> {
    const now = Date.now();
    return this.db
      .insertInto('machines')
      .values({ ...machine, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('lease_id').doUpdateSet({ external_id: machine.external_id, node: machine.node, state: machine.state, details: machine.details, updated_at: now }))
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  getMachine(leaseId: string): Promise<MachineRow | undefined> {
    return this.db.selectFrom('machines').selectAll().where('lease_id', '=', leaseId).executeTakeFirst();
  }

  setMachineState(leaseId: string, state: string): Promise<MachineRow | undefined> {
    return this.db.updateTable('machines').set({ state, updated_at: Date.now() }).where('lease_id', '=', leaseId).returningAll().executeTakeFirst();
  }

  listMachines(filter: { state?: readonly string[] } = {}): Promise<MachineRow[]> {
    let q = this.db.selectFrom('machines').selectAll();
    if (filter.state) q = q.where('state', 'in', [...filter.state]);
    return q.execute();
  }

  async appendEvent(event: { lease_id: string | null; actor: string; kind: string; data?: Record<string, unknown> }): Promise<void> {
    await this.db.insertInto('events').values({ at: Date.now(), lease_id: event.lease_id, actor: event.actor, kind: event.kind, data: JSON.stringify(event.data ?? {}) }).execute();
  }

  listEvents(filter: { lease_id?: string; kind?: string; limit?: number } = {}): Promise<EventRow[]> {
    let q = this.db.selectFrom('events').selectAll();
    if (filter.lease_id !== undefined) q = q.where('lease_id', '=', filter.lease_id);
    if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
    return q.orderBy('id').limit(filter.limit ?? 1000).execute();
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

/**
 * `mkdir -p`, one level at a time: Node's recursive mkdirSync spins forever on some special file
 * systems (seen: a path under /proc hangs at 100 % CPU); this fails at once with the errno.
 */
/**
 * Switch the file to WAL (persistent: once one process has done it, the rest only read the mode).
 * Switching upgrades a read lock to an exclusive one, and SQLite answers SQLITE_BUSY at once —
 * without waiting on busy_timeout — when that upgrade could deadlock with another process's
 * writer; so several processes opening a fresh file together retry here until the deadline.
 */
function enableWal(db: BetterSqlite3.Database, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return;
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      sleepSync(Math.min(200, 5 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()));
    }
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function ensureDir(dir: string): void {
  let path = '';
  for (const part of resolve(dir).split(sep)) {
    path = path === sep || path === '' ? `${path || sep}${part}` : `${path}${sep}${part}`;
    if (part === '' || existsSync(path)) continue;
    try {
      mkdirSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`[vmhub] [store] cannot create ${dir} for the database (${(err as NodeJS.ErrnoException).code}): set VMHUB_DB to a writable path`, { cause: err });
    }
  }
}

export function openStore(options: StoreOptions): Store {
  return new Store(options);
}
