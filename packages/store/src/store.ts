/**
 * The store: one SQLite file (WAL, busy timeout) shared by every vmhub process on a host —
 * several stdio servers and the reaper — or one PostgreSQL database shared by several hosts.
 * Every state change is a single conditional UPDATE (`... WHERE status IN (...) RETURNING ...`),
 * so two processes can never both win a transition, and every status change follows the state
 * machine in lifecycle.ts. Lease rows are never deleted: finished leases stay as tombstones, so
 * an old request_id can never mint a new machine. On PostgreSQL a call whose connection fails is
 * retried (retry.ts); its writes carry one token across attempts, so a retry whose first attempt
 * committed returns that attempt's result and writes nothing twice. The database handle is
 * private: what the server and the reaper do is a method here, and each method runs one function
 * of the module that owns its rows — leases.ts, machines.ts, events.ts, pools.ts (warm pools),
 * sweeps.ts, teardowns.ts (claims and teardown records), control.ts (take-over), credentials.ts
 * (secrets a lease's end must undo, sealed with sealed.ts), snapshots.ts, locks.ts — under the retry rule above.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Backend, SchemaInfo } from './backend.ts';
import * as events from './events.ts';
import type { EventFilter, EventRow, NewEvent } from './events.ts';
import * as leases from './leases.ts';
import type { LeaseFilter, LeasePatch, LeaseRow, NewLease } from './leases.ts';
import { assertTransition, type LeaseStatus, type MachineState, type TransitionTarget } from './lifecycle.ts';
import * as machines from './machines.ts';
import type { MachineRow } from './machines.ts';
import { POSTGRES_DEFAULTS, postgresBackend } from './postgres-backend.ts';
import { withRetry } from './retry.ts';
import { LEASE_COLUMNS, type Database } from './schema.ts';
import { sqliteBackend } from './sqlite-backend.ts';
import { parseStoreTarget, type PostgresSettings } from './target.ts';
import * as control from './control.ts';
import * as credentials from './credentials.ts';
import { Sealer } from './sealed.ts';
import { stateDirOf } from './paths.ts';
import { join } from 'node:path';
import * as locks from './locks.ts';
import { lapsingLeadership, postgresLeadership, type Leadership } from './leadership.ts';
import * as pools from './pools.ts';
import * as snapshots from './snapshots.ts';
import * as workspaces from './workspaces.ts';
import * as jobs from './jobs.ts';
import * as recordingSteps from './recording-steps.ts';
import * as screens from './screens.ts';
import * as sweeps from './sweeps.ts';
import * as teardowns from './teardowns.ts';

export type { LeaseRow, LeasePatch, NewLease, LeaseFilter } from './leases.ts';
export type { MachineRow } from './machines.ts';
export type { EventRow, EventFilter } from './events.ts';

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
  /** The key file lease credentials are sealed with (sealed.ts). Default `secrets.key` in the instance's state directory. */
  secretsKeyFile?: string;
}

export class Store {
  /** `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';
  /** The SQLite file, or the PostgreSQL URL with its password masked (safe to log and show). */
  readonly path: string;
  readonly #backend: Backend;
  readonly #db: Kysely<Database>;
  readonly #leadership: (name: string, holder: string, ttlMs: number) => Leadership;
  readonly #sealer: Sealer;

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
    const dir = stateDirOf(options.path);
    this.#sealer = new Sealer(options.secretsKeyFile ?? (dir === undefined ? undefined : join(dir, 'secrets.key')));
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

  // ── leases ───────────────────────────────────────────────────────────────────────────────

  /**
   * Insert a lease unless its principal's request_id is taken; either way return the row that owns it.
   * `created` says whether this call's lease (its `id`) owns the request_id — also when a retry
   * finds the row its own first attempt inserted. With `event`, its `lease.created` event is
   * written in the same transaction.
   */
  createLease(lease: NewLease, options: { event?: { actor: string; data?: Record<string, unknown> }; workspace?: string } = {}): Promise<{ lease: LeaseRow; created: boolean }> {
    const token = randomUUID();
    const { event, workspace } = options;
    return this.#run('createLease', async () => {
      // With `workspace` (a workspaces row id): attached to the new lease in the same transaction,
      // or WorkspaceHeldError and no lease at all.
      const inserted = event || workspace ? await this.#db.transaction().execute(async (tx) => {
        const row = await leases.insertLease(tx, lease, token, event);
        if (row && workspace) await workspaces.attach(tx, workspace, lease.id, event?.actor ?? 'store', token, Date.now());
        return row;
      }) : await leases.insertLease(this.#db, lease, token);
      if (inserted) return { lease: inserted, created: true };
      const existing = await leases.leaseByRequest(this.#db, lease.request_id, lease.principal);
      if (!existing) throw new Error(`[vmhub] [store] lease insert for request_id ${lease.request_id} neither inserted nor found`);
      return { lease: existing, created: existing.id === lease.id };
    });
  }

  getLease(id: string): Promise<LeaseRow | undefined> {
    return this.#run('getLease', () => leases.getLease(this.#db, id));
  }

  /**
   * The lease a principal's request_id names (request ids are unique per principal: another
   * principal's lease under the same id is never found).
   */
  getLeaseByRequest(requestId: string, principal: string): Promise<LeaseRow | undefined> {
    return this.#run('getLeaseByRequest', () => leases.leaseByRequest(this.#db, requestId, principal));
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
    return this.#run('transition', (attempt) => leases.updateLease(this.#db, id, { ...patch, status: to }, sources, token, attempt));
  }

  /** Update fields (never the status) of a lease that is in one of `inStatus` (any when omitted). */
  updateLease(id: string, patch: LeasePatch, inStatus?: readonly LeaseStatus[]): Promise<LeaseRow | undefined> {
    assertNoStatus(patch);
    const token = randomUUID();
    return this.#run('updateLease', (attempt) => leases.updateLease(this.#db, id, patch, inStatus, token, attempt));
  }

  listLeases(filter: LeaseFilter = {}): Promise<LeaseRow[]> {
    return this.#run('listLeases', () => leases.listLeases(this.#db, filter, this.#backend.insertionOrder));
  }

  countLeases(filter: { status: readonly LeaseStatus[]; owner?: string; principal?: string }): Promise<number> {
    return this.#run('countLeases', () => leases.countLeases(this.#db, filter));
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
    return this.#run('putMachine', () => machines.putMachine(this.#db, machine));
  }

  getMachine(leaseId: string): Promise<MachineRow | undefined> {
    return this.#run('getMachine', () => machines.getMachine(this.#db, leaseId));
  }

  setMachineState(leaseId: string, state: MachineState): Promise<MachineRow | undefined> {
    return this.#run('setMachineState', () => machines.setMachineState(this.#db, leaseId, state));
  }

  listMachines(filter: { state?: readonly MachineState[] } = {}): Promise<MachineRow[]> {
    return this.#run('listMachines', () => machines.listMachines(this.#db, filter));
  }

  // ── events ───────────────────────────────────────────────────────────────────────────────

  /** Append one event; its kind must be one of EVENT_KINDS (anything else throws, nothing is written). */
  async appendEvent(event: NewEvent & { actor: string }): Promise<void> {
    const token = randomUUID();
    await this.#run('appendEvent', () => events.insertEvents(this.#db, event.actor, [{ ...event, token }]));
  }

  listEvents(filter: EventFilter = {}): Promise<EventRow[]> {
    return this.#run('listEvents', () => events.listEvents(this.#db, filter));
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

  // ── detached commands (jobs.ts: any process answers a job, whichever runs it) ──────────

  /** Record that `by` starts job `id` on the lease; written before the command starts. */
  addExecJob(job: { id: string; lease_id: string; started_by: jobs.JobProcess }): Promise<void> {
    const now = Date.now();
    const row = { id: job.id, lease_id: job.lease_id, started_at: now, started_by: JSON.stringify(job.started_by), seen_at: now, finished_at: null, outcome: null };
    return this.#run('addExecJob', () => jobs.insert(this.#db, row));
  }

  /** The heartbeat of the jobs a process still runs (`seen_at` now); ended ones are left alone. */
  touchExecJobs(ids: readonly string[]): Promise<void> {
    return this.#run('touchExecJobs', () => jobs.touch(this.#db, ids, Date.now()));
  }

  /** The job's end: `outcome` (its result or error, JSON) is sealed before it reaches the database; set once. */
  finishExecJob(id: string, outcome: string): Promise<void> {
    const sealed = this.#sealer.seal(outcome, id);
    return this.#run('finishExecJob', () => jobs.finish(this.#db, id, sealed, Date.now()));
  }

  /** A job of the lease, its outcome unsealed; undefined when no process started `id` on it. */
  execJob(leaseId: string, id: string): Promise<jobs.ExecJob | undefined> {
    return this.#run('execJob', async () => {
      const row = await jobs.get(this.#db, leaseId, id);
      return row && jobs.fromRow(row, (sealed, rowId) => this.#sealer.open(sealed, rowId));
    });
  }

  // ── recordings' step numbers (recording-steps.ts: one numbering per lease across processes) ──

  /** Take `n` step numbers for the lease's recording; the last of them (range last-n+1..last). `floor`: steps it held before its first number was taken here. */
  takeRecordingSteps(leaseId: string, n: number, floor = 0): Promise<number> {
    return this.#run('takeRecordingSteps', () => recordingSteps.take(this.#db, leaseId, n, floor));
  }

  // ── a lease's screen mapping (screens.ts: image coordinates mean the same in every process) ──

  /**
   * The lease and the mapping of its latest screenshot (JSON, as the process that took it wrote
   * it; undefined before any), read together: a bound call's one read.
   */
  getLeaseWithScreen(leaseId: string): Promise<{ lease: LeaseRow; screen: string | undefined } | undefined> {
    return this.#run('getLeaseWithScreen', () => screens.leaseWithScreen(this.#db, leaseId));
  }

  /** Write the mapping of the lease's latest screenshot (JSON); the last one wins. */
  setLeaseScreen(leaseId: string, mapping: string): Promise<void> {
    return this.#run('setLeaseScreen', () => screens.put(this.#db, leaseId, mapping, Date.now()));
  }

  // ── secrets a lease's end must undo (credentials.ts; sealed with sealed.ts) ────────────

  /** Keep a credential made for the lease (its secret sealed before it reaches the database); the credential as stored. */
  addLeaseCredential(leaseId: string, credential: credentials.NewLeaseCredential): Promise<credentials.LeaseCredential> {
    const id = randomUUID();
    const row = {
      id, lease_id: leaseId, kind: credential.kind, scope: credential.scope,
      sealed: this.#sealer.seal(JSON.stringify(credential.secret), id), details: JSON.stringify(credential.details ?? {}),
      expires_at: credential.expires_at, created_at: Date.now(), revoked_at: null, outcome: null, attempts: 0, last_error: null,
    };
    return this.#run('addLeaseCredential', async () => {
      await credentials.insert(this.#db, row);
      return credentials.fromRow(row, () => JSON.stringify(credential.secret));
    });
  }

  /** The lease's credentials not yet revoked, unsealed (`all`: revoked ones too). */
  leaseCredentials(leaseId: string, options: { all?: boolean } = {}): Promise<credentials.LeaseCredential[]> {
    const open = (sealed: string, id: string) => this.#sealer.open(sealed, id);
    return this.#run('leaseCredentials', async () => (await (options.all ? credentials.allOf(this.#db, leaseId) : credentials.openOf(this.#db, leaseId))).map((r) => credentials.fromRow(r, open)));
  }

  /** Open credentials of leases that are no longer live (the reaper's sweep retries them), unsealed. */
  pendingRevocations(liveStates: readonly LeaseStatus[], limit = 100): Promise<credentials.LeaseCredential[]> {
    const open = (sealed: string, id: string) => this.#sealer.open(sealed, id);
    return this.#run('pendingRevocations', async () => (await credentials.pending(this.#db, liveStates, limit)).map((r) => credentials.fromRow(r, open)));
  }

  /** The credential is undone (or found already invalid, or lapsed): closed for good. */
  credentialRevoked(id: string, outcome: credentials.CredentialOutcome): Promise<void> {
    return this.#run('credentialRevoked', () => credentials.markRevoked(this.#db, id, outcome, Date.now()));
  }

  /** A revocation failed: counted, its error kept; the credential stays open for the next pass. */
  credentialRevokeFailed(id: string, message: string): Promise<void> {
    return this.#run('credentialRevokeFailed', () => credentials.noteFailure(this.#db, id, message));
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
   * releasing, expired), machines not yet destroyed (a failed lease's machine included), or
   * snapshots not yet deleted.
   */
  hasWork(): Promise<boolean> {
    return this.#run('hasWork', () => leases.hasWork(this.#db));
  }

  // ── snapshots (snapshots.ts: owned by a principal, kept past their lease, deleted under a claim) ──

  /** Record a snapshot the provider made (state ready), with its `snapshot.created` event. */
  addSnapshot(snapshot: snapshots.NewSnapshot, actor: string): Promise<snapshots.SnapshotRow> {
    const token = randomUUID();
    return this.#run('addSnapshot', () => snapshots.insert(this.#db, snapshot, actor, token));
  }

  getSnapshot(id: string): Promise<snapshots.SnapshotRow | undefined> {
    return this.#run('getSnapshot', () => snapshots.get(this.#db, id));
  }

  /** Snapshots newest first (at most `limit`). */
  listSnapshots(filter: snapshots.SnapshotFilter = {}, limit = 1000): Promise<snapshots.SnapshotRow[]> {
    return this.#run('listSnapshots', () => snapshots.list(this.#db, filter, limit));
  }

  /** Live snapshots (ready or deleting) and the bytes they hold: a principal's, or the instance's. */
  snapshotUsage(principal?: string): Promise<{ count: number; bytes: number }> {
    return this.#run('snapshotUsage', () => snapshots.usage(this.#db, principal));
  }

  /**
   * Claim a snapshot for deletion until `until` (ready → deleting; or a deletion whose claim lapsed
   * or is `by`'s own). `dueAt`: only a ready one expired by then (the reaper). Undefined: not claimable.
   */
  claimSnapshot(id: string, by: string, until: number, dueAt?: number): Promise<snapshots.SnapshotRow | undefined> {
    return this.#run('claimSnapshot', () => snapshots.claim(this.#db, id, by, until, Date.now(), dueAt));
  }

  /** The claimed deletion ended with the provider's answer: `deleted`, with its event. False: not `by`'s claim. */
  snapshotDeleted(id: string, by: string, outcome: snapshots.SnapshotOutcome, reason: string): Promise<boolean> {
    const token = randomUUID();
    return this.#run('snapshotDeleted', () => snapshots.finish(this.#db, id, by, outcome, Date.now(), token, reason));
  }

  /** The claimed deletion failed: counted, and the claim lapses now (the next pass retries). */
  snapshotDeleteFailed(id: string, by: string, message: string): Promise<void> {
    return this.#run('snapshotDeleteFailed', () => snapshots.failed(this.#db, id, by, message, Date.now()));
  }

  /** Ready snapshots expired at `now` and deletions whose claim lapsed (a reaper pass's work). */
  dueSnapshots(now: number, limit = 500): Promise<snapshots.SnapshotRow[]> {
    return this.#run('dueSnapshots', () => snapshots.due(this.#db, now, limit));
  }

  // ── workspaces (workspaces.ts: a principal's named volumes, held by one lease at a time, deleted by a person) ──

  /** A new workspace (with its event), or the principal's existing one of that name (created false). */
  addWorkspace(workspace: workspaces.NewWorkspace, actor: string): Promise<{ workspace: workspaces.WorkspaceRow; created: boolean }> {
    const token = randomUUID();
    return this.#run('addWorkspace', () => workspaces.insert(this.#db, workspace, actor, token));
  }

  getWorkspace(principal: string, name: string): Promise<workspaces.WorkspaceRow | undefined> {
    return this.#run('getWorkspace', () => workspaces.get(this.#db, principal, name));
  }

  getWorkspaceById(id: string): Promise<workspaces.WorkspaceRow | undefined> {
    return this.#run('getWorkspaceById', () => workspaces.getById(this.#db, id));
  }

  /** The workspace the lease was attached to, while no later lease took it; undefined: none. */
  workspaceOfLease(leaseId: string): Promise<workspaces.WorkspaceRow | undefined> {
    return this.#run('workspaceOfLease', () => workspaces.ofLease(this.#db, leaseId));
  }

  /** A principal's workspaces (everyone's when undefined), by principal and name. */
  listWorkspaces(principal?: string, limit = 1000): Promise<workspaces.WorkspaceRow[]> {
    return this.#run('listWorkspaces', () => workspaces.list(this.#db, principal, limit));
  }

  workspaceUsage(principal: string): Promise<{ count: number; bytes: number }> {
    return this.#run('workspaceUsage', () => workspaces.usage(this.#db, principal));
  }

  setWorkspaceBytes(id: string, bytes: number): Promise<void> {
    return this.#run('setWorkspaceBytes', () => workspaces.setBytes(this.#db, id, bytes));
  }

  /** ready → deleting while no lease holds it (WorkspaceHeldError otherwise); undefined: gone. */
  beginWorkspaceDelete(id: string): Promise<workspaces.WorkspaceRow | undefined> {
    return this.#run('beginWorkspaceDelete', () => workspaces.beginDelete(this.#db, id));
  }

  /** The provider answered: the row goes, with a `workspace.deleted` event naming the outcome. */
  workspaceDeleted(id: string, actor: string, outcome: string): Promise<void> {
    const token = randomUUID();
    return this.#run('workspaceDeleted', () => workspaces.finishDelete(this.#db, id, actor, outcome, token));
  }

  /** The provider's delete failed: the workspace is ready again. */
  workspaceDeleteFailed(id: string): Promise<void> {
    return this.#run('workspaceDeleteFailed', () => workspaces.abortDelete(this.#db, id));
  }

  /** Which of these snapshot identities belong to a live row (the orphan sweep spares them). */
  liveSnapshotIdentities(identities: readonly string[]): Promise<Set<string>> {
    return this.#run('liveSnapshotIdentities', () => snapshots.liveIdentities(this.#db, identities));
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
