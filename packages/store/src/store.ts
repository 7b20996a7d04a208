/**
 * The store: one SQLite file (WAL, busy timeout) shared by every vmhub process on a host —
 * several stdio servers and the reaper — or one PostgreSQL database shared by several hosts.
 * Every state change is a single conditional UPDATE (`... WHERE status IN (...) RETURNING ...`),
 * so two processes can never both win a transition, and every status change follows the state
 * machine in lifecycle.ts. Lease rows are never deleted: finished leases stay as tombstones, so
 * an old request_id can never mint a new machine. On PostgreSQL a call whose connection fails is
 * retried (retry.ts); its writes carry one token across attempts, so a retry whose first attempt
 * committed returns that attempt's result and writes nothing twice. The database handle is
 * private: what the server and the reaper do is a method here.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Backend, SchemaInfo } from './backend.ts';
import { insertEvents, type EventKind, type NewEvent } from './events.ts';
import { assertTransition, type LeaseStatus, type MachineState, type TransitionTarget } from './lifecycle.ts';
import { POSTGRES_DEFAULTS, postgresBackend } from './postgres-backend.ts';
import { withRetry } from './retry.ts';
import { LEASE_COLUMNS, type Database, type EventTable, type LeaseTable, type MachineTable } from './schema.ts';
import { sqliteBackend } from './sqlite-backend.ts';
import { parseStoreTarget, type PostgresSettings } from './target.ts';
import * as control from './control.ts';
import * as locks from './locks.ts';
import { lapsingLeadership, postgresLeadership, type Leadership } from './leadership.ts';
import * as pools from './pools.ts';
import * as sweeps from './sweeps.ts';
import * as teardowns from './teardowns.ts';

export type LeaseRow = Selectable<LeaseTable>;
export type MachineRow = Selectable<MachineTable>;
export type EventRow = Selectable<EventTable>;
/**
 * Fields a caller may change on a lease. Never `status`: that moves only through `transition()`
 * (and the store's own sweeps and teardown records). `updated_at` is set to now unless given.
 */
export type LeasePatch = Omit<Updateable<LeaseTable>, 'id' | 'request_id' | 'created_at' | 'status' | 'write_token'>;

export interface StoreOptions {
  /**
   * What VMHUB_DB holds: a SQLite file path (created with its directory; `:memory:` for tests)
   * or a `postgres://user:password@host:port/database` URL. Any other `scheme://` is refused
   * (StoreConfigError naming it).
   */
  path: string;
  /** SQLite: milliseconds a writer waits for another process's lock before failing. Default 10 000. */
  busyTimeoutMs?: number;
  /** SQLite: open without migrating (read-only tools). Default false. */
  readonly?: boolean;
  /** PostgreSQL: pool and timeouts (override the URL's `pool_max`, `statement_timeout_ms`, `connect_timeout_ms`, `retry_ms`). */
  postgres?: PostgresSettings;
}

/** A lease as inserted: the table's columns minus bookkeeping the store fills in itself. */
/**
 * A lease to insert. `principal`: who holds it — the authenticated caller, POOL_PRINCIPAL for a
 * warm pool's machine, REAPER_PRINCIPAL for the reaper's orphan tombstones; its request_id is
 * unique among that principal's leases.
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

export interface EventFilter {
  lease_id?: string;
  kind?: EventKind;
  /** Events whose actor starts with this (`reaper:` = every reaper's). */
  actorPrefix?: string;
  /** Default 1000. */
  limit?: number;
}

export class Store {
  /** `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';
  /** The SQLite file, or the PostgreSQL URL with its password masked (safe to log and show). */
  readonly path: string;
  readonly #backend: Backend;
  readonly #db: Kysely<Database>;
  readonly #leadership: (name: string, holder: string, ttlMs: number) => Leadership;

  constructor(options: StoreOptions) {
    const target = parseStoreTarget(options.path);
    this.#leadership = target.kind === 'sqlite'
      ? (name, holder, ttlMs) => lapsingLeadership(this.#db, name, holder, ttlMs)
      : (name) => postgresLeadership(target.url, name, { ...POSTGRES_DEFAULTS, ...target.settings, ...options.postgres });
    this.#backend = target.kind === 'sqlite'
      ? sqliteBackend(target.path, { busyTimeoutMs: options.busyTimeoutMs ?? 10_000, readonly: options.readonly ?? false })
      : postgresBackend(target.url, target.redacted, { ...target.settings, ...options.postgres });
    this.kind = this.#backend.kind;
    this.path = this.#backend.location;
    this.#db = this.#backend.db;
  }

  /** Connect and migrate now (otherwise the first call does): PostgreSQL down → StoreUnavailableError after the retry window. */
  async ready(): Promise<void> {
    await withRetry(this.#backend, 'opening the store', () => Promise.resolve());
  }

  /** The schema version, tables and (SQLite) journal mode: what migrations and WAL did (for health checks and tests). */
  schemaInfo(): Promise<SchemaInfo> {
    return this.#run('schemaInfo', () => this.#backend.schemaInfo());
  }

  /** Run one call, retrying transient failures (PostgreSQL); `attempt` is 0 on the first try. */
  #run<T>(what: string, fn: (attempt: number) => Promise<T>): Promise<T> {
    return withRetry(this.#backend, what, fn);
  }

  /** A retried single-row write whose first attempt may have committed: the row if our token is on it. */
  #ownWrite(id: string, token: string): Promise<LeaseRow | undefined> {
    return this.#db.selectFrom('leases').select(LEASE_COLUMNS).where('id', '=', id).where('write_token', '=', token).executeTakeFirst();
  }

  // ── leases ───────────────────────────────────────────────────────────────────────────────

  /**
   * Insert a lease unless its principal's request_id is taken; either way return the row that owns it.
   * `created` says whether this call's lease (its `id`) owns the request_id — also when a retry
   * finds the row its own first attempt inserted. With `event`, its `lease.created` event is
   * written in the same transaction.
   */
  createLease(lease: NewLease, options: { event?: { actor: string; data?: Record<string, unknown> } } = {}): Promise<{ lease: LeaseRow; created: boolean }> {
    const token = randomUUID();
    const insert = async (db: Kysely<Database>): Promise<LeaseRow | undefined> => {
      const now = Date.now();
      const row = await db
        .insertInto('leases')
        .values({ ...lease, stages: lease.stages ?? '[]', updated_at: now, error_code: null, error_message: null, claimed_by: null, claim_expires_at: null, write_token: token })
        // request_id is unique per principal (migration 5).
        .onConflict((oc) => oc.columns(['principal', 'request_id']).doNothing())
        .returning(LEASE_COLUMNS)
        .executeTakeFirst();
      // The `lease.created` event commits with the row, or neither does.
      if (row && options.event) await insertEvents(db, options.event.actor, [{ lease_id: lease.id, kind: 'lease.created', data: options.event.data ?? {}, token: `${token}:${lease.id}` }]);
      return row;
    };
    return this.#run('createLease', async () => {
      const inserted = options.event ? await this.#db.transaction().execute(insert) : await insert(this.#db);
      if (inserted) return { lease: inserted, created: true };
      const existing = await this.#byRequest(lease.request_id, lease.principal);
      if (!existing) throw new Error(`[vmhub] [store] lease insert for request_id ${lease.request_id} neither inserted nor found`);
      return { lease: existing, created: existing.id === lease.id };
    });
  }

  getLease(id: string): Promise<LeaseRow | undefined> {
    return this.#run('getLease', () => this.#db.selectFrom('leases').select(LEASE_COLUMNS).where('id', '=', id).executeTakeFirst());
  }

  /**
   * The lease a principal's request_id names (request ids are unique per principal: another
   * principal's lease under the same id is never found).
   */
  getLeaseByRequest(requestId: string, principal: string): Promise<LeaseRow | undefined> {
    return this.#run('getLeaseByRequest', () => this.#byRequest(requestId, principal));
  }

  #byRequest(requestId: string, principal: string): Promise<LeaseRow | undefined> {
    return this.#db.selectFrom('leases').select(LEASE_COLUMNS).where('request_id', '=', requestId).where('principal', '=', principal).executeTakeFirst();
  }

  /**
   * Atomically move a lease from one of `from` to `to`; undefined if it was not in `from`.
   * Every `from → to` must be in TRANSITIONS: a pair the state machine does not allow throws
   * LeaseTransitionError at the call, before the database is touched (and fails to compile when
   * `from` is written as literals).
   */
  transition<F extends LeaseStatus>(id: string, from: F | readonly F[], to: NoInfer<TransitionTarget<F>>, patch: LeasePatch = {}): Promise<LeaseRow | undefined> {
    const sources: readonly LeaseStatus[] = typeof from === 'string' ? [from] : from;
    assertTransition(id, sources, to);
    assertNoStatus(patch);
    const token = randomUUID();
    return this.#run('transition', async (attempt) => {
      const row = await this.#db
        .updateTable('leases')
        .set({ ...patch, status: to, updated_at: Date.now(), write_token: token })
        .where('id', '=', id)
        .where('status', 'in', [...sources])
        .returning(LEASE_COLUMNS)
        .executeTakeFirst();
      return row ?? (attempt > 0 ? this.#ownWrite(id, token) : undefined);
    });
  }

  /** Update fields (never the status) of a lease that is in one of `inStatus` (any when omitted). */
  updateLease(id: string, patch: LeasePatch, inStatus?: readonly LeaseStatus[]): Promise<LeaseRow | undefined> {
    assertNoStatus(patch);
    const token = randomUUID();
    return this.#run('updateLease', async (attempt) => {
      let q = this.#db.updateTable('leases').set({ updated_at: Date.now(), ...patch, write_token: token }).where('id', '=', id);
      if (inStatus) q = q.where('status', 'in', [...inStatus]);
      const row = await q.returning(LEASE_COLUMNS).executeTakeFirst();
      return row ?? (attempt > 0 ? this.#ownWrite(id, token) : undefined);
    });
  }

  listLeases(filter: LeaseFilter = {}): Promise<LeaseRow[]> {
    return this.#run('listLeases', () => this.#listLeases(filter));
  }

  #listLeases(filter: LeaseFilter): Promise<LeaseRow[]> {
    let q = this.#db.selectFrom('leases').select(LEASE_COLUMNS);
    if (filter.status) q = q.where('status', 'in', [...filter.status]);
    if (filter.expiresBefore !== undefined) q = q.where('expires_at', '<', filter.expiresBefore);
    if (filter.maxExpiresBefore !== undefined) q = q.where('max_expires_at', '<', filter.maxExpiresBefore);
    if (filter.deadlineBefore !== undefined) q = q.where('deadline_at', '<', filter.deadlineBefore);
    if (filter.owner !== undefined) q = q.where('owner', '=', filter.owner);
    if (filter.principal !== undefined) q = q.where('principal', '=', filter.principal);
    // rowid (SQLite) or seq (PostgreSQL) breaks ties within a millisecond: insertion order.
    const direction = filter.newestFirst ? 'desc' : 'asc';
    q = q.orderBy('created_at', direction).orderBy(this.#backend.insertionOrder, direction);
    if (filter.limit !== undefined) q = q.limit(filter.limit);
    return q.execute();
  }

  countLeases(filter: { status: readonly LeaseStatus[]; owner?: string; principal?: string }): Promise<number> {
    return this.#run('countLeases', async () => {
      let q = this.#db.selectFrom('leases').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', [...filter.status]);
      if (filter.owner !== undefined) q = q.where('owner', '=', filter.owner);
      if (filter.principal !== undefined) q = q.where('principal', '=', filter.principal);
      const row = await q.executeTakeFirstOrThrow();
      return Number(row.n);
    });
  }

  // ── warm pools (pools.ts: pool machines are leases held by POOL_PRINCIPAL) ────────────────

  /**
   * Hand a ready lease of the pool `claim.pool` to an agent (its request_id, principal, owner and
   * expiry), with its `lease.claimed` event; undefined when the pool has none ready. A request_id
   * already taken fails here like createLease's would not: callers look it up first.
   */
  claimPooled(claim: Omit<pools.PoolClaim, 'token' | 'now'>): Promise<LeaseRow | undefined> {
    const token = randomUUID();
    return this.#run('claimPooled', async (attempt) => {
      if (attempt > 0) {
        // The first attempt may have committed: then the row is under our request_id with our token.
        const mine = await this.#db.selectFrom('leases').select(LEASE_COLUMNS).where('request_id', '=', claim.request_id).where('principal', '=', claim.principal).where('write_token', '=', token).executeTakeFirst();
        if (mine) return mine;
      }
      return pools.claimPooled(this.#db, { ...claim, token, now: Date.now() });
    });
  }

  /** Push these pool leases' expiry to `until` (capped by their max lifetime); claimed ones are untouched. Returns how many. */
  holdPooled(ids: readonly string[], until: number): Promise<number> {
    return this.#run('holdPooled', () => pools.holdPooled(this.#db, ids, until));
  }

  // ── sweeps (whole-table lifecycle work, one statement per source status) ──────────────────

  /**
   * Live leases past `expires_at` or `max_expires_at` at `now` → `expired`, with a
   * `lease.expired` event each; one transaction, one UPDATE per source status whose WHERE is the
   * reason, so a lease renewed a moment earlier is not expired by a stale read.
   */
  expireDue(now: number, actor: string): Promise<sweeps.ExpiredLease[]> {
    const token = randomUUID();
    return this.#run('expireDue', (attempt) => sweeps.expireDue(this.#db, now, actor, token, attempt));
  }

  /**
   * Leases stuck in `provisioning`/`starting` past `deadline_at` (or, without one, created
   * before `fallbackCreatedBefore`) → `failed` with BOOT_TIMEOUT and a `lease.failed` event.
   * Returns them (their machines must go).
   */
  failStuck(now: number, fallbackCreatedBefore: number, actor: string): Promise<sweeps.FailedLease[]> {
    const token = randomUUID();
    return this.#run('failStuck', (attempt) => sweeps.failStuck(this.#db, now, fallbackCreatedBefore, actor, token, attempt));
  }

  /** `releasing` leases whose releaser is gone: claim lapsed before `before`, or never set and untouched since then. */
  stuckReleases(before: number): Promise<LeaseRow[]> {
    return this.#run('stuckReleases', () => sweeps.stuckReleases(this.#db, before));
  }

  /** Finished leases (final status, updated before `updatedBefore`) whose machine row is not settled: a process died between the transition and the destroy. */
  lingering(updatedBefore: number): Promise<LeaseRow[]> {
    return this.#run('lingering', () => sweeps.lingering(this.#db, updatedBefore));
  }

  /** Providers that an unfinished lease or an unsettled machine row names. */
  providersInUse(): Promise<Set<string>> {
    return this.#run('providersInUse', () => sweeps.providersInUse(this.#db));
  }

  /** Identities that a lease still owns (any status that is not final: live or expired). */
  ownedIdentities(): Promise<Set<string>> {
    return this.#run('ownedIdentities', () => sweeps.ownedIdentities(this.#db));
  }

  /** Lease rows by identity (500 identities per statement). */
  leasesByIdentity(identities: readonly string[]): Promise<Map<string, LeaseRow>> {
    return this.#run('leasesByIdentity', () => sweeps.leasesByIdentity(this.#db, identities));
  }

  // ── claims and teardown records ──────────────────────────────────────────────────────────

  /**
   * Claim a lease for exclusive work (teardown) until `until`: succeeds when it is in one of
   * `inStatus` and nobody else holds an unexpired claim. A crashed claimant's claim lapses, so
   * the work is picked up again.
   */
  async claim(id: string, by: string, until: number, inStatus: readonly LeaseStatus[]): Promise<LeaseRow | undefined> {
    return (await this.claimMany([id], by, until, inStatus)).claimed[0];
  }

  /**
   * `claim()` for many leases in one UPDATE (per 500); another holder's unexpired claim is never
   * overwritten. Says which of the rest are held elsewhere (still claimable, claimed by another);
   * leases that left `inStatus` meanwhile are in neither list.
   */
  claimMany(ids: readonly string[], by: string, until: number, inStatus: readonly LeaseStatus[]): Promise<teardowns.ClaimResult> {
    // A retry re-claims what its first attempt claimed (claimed_by = by is claimable by `by`).
    return this.#run('claimMany', () => teardowns.claimMany(this.#db, ids, by, until, inStatus));
  }

  /** Extend the claims `by` still holds on `ids` to `until` (a heartbeat while the work runs); others' are untouched. */
  renewClaims(ids: readonly string[], by: string, until: number): Promise<void> {
    return this.#run('renewClaims', () => teardowns.renewClaims(this.#db, ids, by, until));
  }

  /** Machine rows of these leases, by lease id (one statement per 500). */
  machinesFor(leaseIds: readonly string[]): Promise<Map<string, MachineRow>> {
    return this.#run('machinesFor', () => teardowns.machinesFor(this.#db, leaseIds));
  }

  /**
   * Record finished teardowns in one transaction: machine states (or rows found through the
   * provider), final transitions — only for leases still in `final.from` and claimed by
   * `actor`, with a `lease.<to>` event each — claims released (unless `keepClaim`), and the
   * records' events. Returns the leases that reached their final status. Bad records (a
   * transition the state machine refuses, an unknown event kind) throw before anything is written.
   */
  async recordTeardowns(actor: string, records: readonly teardowns.TeardownRecord[]): Promise<teardowns.FinishedLease[]> {
    teardowns.checkRecords(records);
    const token = randomUUID();
    return this.#run('recordTeardowns', (attempt) => teardowns.recordTeardowns(this.#db, actor, records, token, attempt));
  }

  // ── machines ─────────────────────────────────────────────────────────────────────────────

  /** Insert or update a lease's machine row (an upsert: a retry writes the same row). */
  putMachine(machine: Omit<MachineRow, 'created_at' | 'updated_at'>): Promise<MachineRow> {
    return this.#run('putMachine', () => {
      const now = Date.now();
      return this.#db
        .insertInto('machines')
        .values({ ...machine, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('lease_id').doUpdateSet({ external_id: machine.external_id, node: machine.node, state: machine.state, details: machine.details, updated_at: now }))
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  getMachine(leaseId: string): Promise<MachineRow | undefined> {
    return this.#run('getMachine', () => this.#db.selectFrom('machines').selectAll().where('lease_id', '=', leaseId).executeTakeFirst());
  }

  setMachineState(leaseId: string, state: MachineState): Promise<MachineRow | undefined> {
    return this.#run('setMachineState', () => this.#db.updateTable('machines').set({ state, updated_at: Date.now() }).where('lease_id', '=', leaseId).returningAll().executeTakeFirst());
  }

  listMachines(filter: { state?: readonly MachineState[] } = {}): Promise<MachineRow[]> {
    return this.#run('listMachines', () => {
      let q = this.#db.selectFrom('machines').selectAll();
      if (filter.state) q = q.where('state', 'in', [...filter.state]);
      return q.execute();
    });
  }

  // ── events ───────────────────────────────────────────────────────────────────────────────

  /** Append one event; its kind must be one of EVENT_KINDS (anything else throws, nothing is written). */
  async appendEvent(event: NewEvent & { actor: string }): Promise<void> {
    const token = randomUUID();
    await this.#run('appendEvent', () => insertEvents(this.#db, event.actor, [{ ...event, token }]));
  }

  listEvents(filter: EventFilter = {}): Promise<EventRow[]> {
    return this.#run('listEvents', () => {
      let q = this.#db.selectFrom('events').selectAll();
      if (filter.lease_id !== undefined) q = q.where('lease_id', '=', filter.lease_id);
      if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
      // A range on the text (byte-wise: SQLite's BINARY, PostgreSQL's COLLATE "C") rather than LIKE: no escaping, no case folding.
      if (filter.actorPrefix !== undefined) q = q.where('actor', '>=', filter.actorPrefix).where('actor', '<', `${filter.actorPrefix}\u{10ffff}`);
      return q.orderBy('id').limit(filter.limit ?? 1000).execute();
    });
  }

  // ── who drives a lease (control.ts: the live view's take-over, shared by every process) ──

  /** The lease's control when a person holds it; undefined: the agent drives. One primary-key read. */
  heldBy(leaseId: string): Promise<control.LeaseControlState | undefined> {
    return this.#run('heldBy', () => control.held(this.#db, leaseId));
  }

  /** The controls of these leases (held or not, with any pending note); leases never taken over are absent. */
  leaseControls(leaseIds: readonly string[]): Promise<Map<string, control.LeaseControlState>> {
    return this.#run('leaseControls', () => control.controls(this.#db, leaseIds));
  }

  /** A person (`by`: their principal) takes the lease over; idempotent (the first take-over's time stays). */
  takeover(leaseId: string, by: string, options: { allowCommandsAndFiles?: boolean } = {}): Promise<control.TakeoverResult> {
    const token = randomUUID();
    return this.#run('takeover', () => control.takeover(this.#db, leaseId, by, options.allowCommandsAndFiles === true, token, Date.now()));
  }

  /** Back to the agent; a note (when given) waits for the agent's next result. */
  handback(leaseId: string, note?: string): Promise<{ changed: boolean }> {
    return this.#run('handback', () => control.handback(this.#db, leaseId, note, Date.now()));
  }

  /** The hand-back note not yet delivered, consumed: exactly one caller across every process gets it. */
  takeNote(leaseId: string): Promise<string | undefined> {
    const token = randomUUID();
    const seen: { note?: string } = {};
    return this.#run('takeNote', (attempt) => control.takeNote(this.#db, leaseId, token, attempt, seen));
  }

  // ── locks and whether there is work ────────────────────────────────────────────────────

  /** Take or renew the named lock until `until` (ms); true when `holder` holds it. */
  acquireLock(name: string, holder: string, until: number): Promise<boolean> {
    return this.#run('acquireLock', () => locks.acquireLock(this.#db, name, holder, until));
  }

  releaseLock(name: string, holder: string): Promise<void> {
    return this.#run('releaseLock', () => locks.releaseLock(this.#db, name, holder));
  }

  /** Who holds the named lock now; undefined when nobody does (or it lapsed). */
  lockHolder(name: string): Promise<locks.LockHeld | undefined> {
    return this.#run('lockHolder', () => locks.lockHolder(this.#db, name));
  }

  /**
   * Exclusive leadership of `name` among every process of this store (leadership.ts): on
   * PostgreSQL a session advisory lock on a dedicated connection, released the moment that
   * session ends; on SQLite the lapsing lock `name` held by `holder` for `ttlMs` per acquire().
   */
  leadership(name: string, holder: string, ttlMs: number): Leadership {
    return this.#leadership(name, holder, ttlMs);
  }

  /**
   * Is there anything a reaper must watch? Leases not yet final (provisioning, starting, ready,
   * releasing, expired), or machines not yet destroyed (a failed lease's machine included).
   */
  hasWork(): Promise<boolean> {
    return this.#run('hasWork', async () => {
      const lease = await this.#db.selectFrom('leases').select('id').where('status', 'in', ['provisioning', 'starting', 'ready', 'releasing', 'expired']).limit(1).executeTakeFirst();
      if (lease) return true;
      const machine = await this.#db.selectFrom('machines').select('lease_id').where('state', 'not in', ['destroyed', 'mismatch']).limit(1).executeTakeFirst();
      return machine !== undefined;
    });
  }

  async close(): Promise<void> {
    await this.#backend.close();
  }
}

function assertNoStatus(patch: LeasePatch): void {
  if ('status' in patch) throw new Error('[vmhub] [store] a lease patch cannot set status: move the lease with transition() (the state machine in @vmhub/store\'s README)');
}

export function openStore(options: StoreOptions): Store {
  return new Store(options);
}
