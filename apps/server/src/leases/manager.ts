/**
 * The lease manager: create returns at once and provisioning continues in this process;
 * create is idempotent by request_id across retries and processes (the store's unique key
 * decides the single winner); status — and create, given wait_seconds — waits a bounded time
 * with progress notifications; renew is capped by the max lifetime; release is idempotent and
 * verifies identity on teardown. A server whose stdin closed waits for settled() before it
 * exits; one stopped by a signal abandons provisioning to the reaper (abortAll).
 * The parts: provisioning in provision.ts, release and its teardowns in release.ts, bounded
 * waits in wait.ts, what they share in deps.ts; this file decides (create, get, list) and composes.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { LIVE_LEASE_STATES, machineIdentity, VmhubError, type LeaseInfo, type LeaseStatusInfo, type TemplateConfig, type ToolInput, type ToolOutput } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';
import type { CallExtra } from '@vmhub/core/router';
import { POOL_PRINCIPAL, snapshotRef, type LeaseRow, type LeaseStatus, type SnapshotRow, type Store, type WorkspaceRow } from '@vmhub/store';
import { log } from '../log.ts';
import type { Registry } from '../registry.ts';
import { LeaseChanges } from './changes.ts';
import { ACTIVE, type LeaseDeps } from './deps.ts';
import { fork, type ForkHost } from './fork.ts';
import { checkMachine, machineLostError } from './machine-lost.ts';
import { provision } from './provision.ts';
import { reapExpired, release } from './release.ts';
import { leaseSsh, sshCommandLine } from './ssh-access.ts';
import { leaseView, pastDue } from './view.ts';
import { templateUnavailable } from './unavailable.ts';
import { leaseLogs } from './logs.ts';
import { startRestart, type RestartGate } from './restart.ts';
import { machineStats } from './stats.ts';
import { MAX_WAIT_SECONDS, waitWhileMade } from './wait.ts';
import { heldError, measureWorkspace, prepareWorkspace, workspaceRef } from '../workspaces/attach.ts';

/** What the manager asks of the warm pools (pools.ts implements it). */
export interface PoolHooks {
  /** The owner value of the template's pool, or undefined when it has none. */
  poolOf(template: TemplateConfig): string | undefined;
  /** A claim was tried on this template: top its pool up. */
  claimed(templateId: string): void;
}

export class LeaseManager {
  readonly #store: Store;
  readonly #registry: Registry;
  readonly #config: VmhubConfig;
  readonly #actor: string;
  /** Provisioning runs of this process, and the teardowns they hand off: what settled() waits for. */
  readonly #running = new Set<Promise<void>>();
  /** Set by abortAll(): an abort from now on abandons provisioning to the reaper, records nothing. */
  #closing = false;
  /** What provision.ts, release.ts and wait.ts share with this manager. */
  readonly #deps: LeaseDeps;
  /** The warm pools (pools.ts), told when a claim took a machine so they refill at once. */
  #pools: PoolHooks | undefined;

  constructor(store: Store, registry: Registry, config: VmhubConfig, onEnd: (leaseId: string, reason: string) => Promise<void>) {
    this.#store = store;
    this.#registry = registry;
    this.#config = config;
    this.#actor = `server:${hostname()}:${process.pid}`;
    this.#deps = {
      store, registry, config, actor: this.#actor, provisioning: new Map(), changes: new LeaseChanges(), onEnd,
      track: (work) => this.#track(work),
      closing: () => this.#closing,
    };
  }

  /** `server:<host>:<pid>`: the actor of this process's events and claims. */
  get actor(): string {
    return this.#actor;
  }

  template(id: string): TemplateConfig {
    const t = this.#registry.templates.get(id);
    if (!t && this.#registry.hiddenStandins.has(id)) throw new VmhubError('NOT_FOUND', `template "${id}" is a stand-in, offered only when the server runs with VMHUB_STANDIN_TEMPLATES=1 (config standin_templates: true)`, { hint: 'Restart the server with VMHUB_STANDIN_TEMPLATES=1 to use stand-in templates, or pick one from vm_list_templates.' });
    if (!t && id.endsWith('-standin') && this.#registry.standinsAbsent) throw new VmhubError('NOT_FOUND', `template "${id}" is not installed: ${this.#registry.standinsAbsent}`, { hint: 'Stand-in templates exist only in a vmhub checkout: run the server from one, or pick a template from vm_list_templates.' });
    if (!t) throw new VmhubError('NOT_FOUND', `unknown template "${id}"; templates: ${[...this.#registry.templates.keys()].join(', ') || '(none configured)'}`);
    return t;
  }

  attachPools(pools: PoolHooks): void {
    this.#pools = pools;
  }

  /**
   * `principal` is who is authenticated (the HTTP token's principal, or the local user on
   * stdio): quotas count it. `owner` is the label the agent gave (or its client's name).
   */
  async create(input: ToolInput<'vm_lease_create'>, principal: string, owner: string): Promise<LeaseInfo & { lease_ids?: string[] }> {
    // A fork (fork.ts): leases of the snapshot's template, each made by createOne.
    if (input.snapshot_id !== undefined) return fork(this.#forkHost(), input, principal, owner);
    return this.createOne({ templateId: input.template!, requestId: input.request_id ?? randomUUID(), principal, owner, ttlSeconds: input.ttl_seconds, ...(input.workspace !== undefined ? { workspace: input.workspace } : {}) });
  }

  #forkHost(): ForkHost {
    return { store: this.#store, registry: this.#registry, config: this.#config, template: (id) => this.template(id), createOne: (r) => this.createOne(r) };
  }

  /**
   * One lease under `requestId`: the one it already names, a warm pool's, or a new one.
   * `from`: a fork's snapshot — never a warm pool's machine (it must start from the snapshot).
   */
  async createOne(request: { templateId: string; requestId: string; principal: string; owner: string; ttlSeconds?: number; from?: SnapshotRow; workspace?: string }): Promise<LeaseInfo> {
    const { templateId, requestId, principal, owner, from } = request;
    const input = { template: templateId, ttl_seconds: request.ttlSeconds };
    // request_id is unique per principal: another principal's lease under it is never found.
    const existing = await this.#store.getLeaseByRequest(requestId, principal);
    if (existing) return this.#same(existing, input.template);

    const template = this.template(input.template);
    const missing = this.#registry.missing(template);
    if (missing) throw new VmhubError('CAPABILITY_UNAVAILABLE', `template ${template.id} is unavailable: ${missing}`);
    const provider = this.#registry.providers.get(template.provider)!;
    const availability = await provider.availability(template);
    if (availability.availability !== 'available') throw await templateUnavailable(template, provider, availability);

    const limits = this.#config.leases;
    // At the quota, a concurrent call with this request_id (another process) may just have made
    // the lease that filled it: that call's lease is the answer, not a refusal.
    const full = async () => {
      const raced = await this.#store.getLeaseByRequest(requestId, principal);
      return raced ? this.#same(raced, input.template) : undefined;
    };
    if ((await this.#store.countLeases({ status: LIVE_LEASE_STATES, principal })) >= limits.max_per_owner) {
      const raced = await full();
      if (raced) return raced;
      throw new VmhubError('QUOTA_EXCEEDED', `principal "${principal}" already holds ${limits.max_per_owner} live leases (leases.max_per_owner counts the authenticated principal, whatever owner label a call gives)`);
    }
    // A warm pool's ready machine, handed over whole: it already counts in max_total (never with a workspace: it must be mounted at create).
    const warm = from || request.workspace !== undefined ? undefined : await this.#claimWarm(template, requestId, principal, owner, input.ttl_seconds);
    if (warm) return warm;
    if ((await this.#store.countLeases({ status: LIVE_LEASE_STATES })) >= limits.max_total) {
      const raced = await full();
      if (raced) return raced;
      throw new VmhubError('HOST_CAPACITY', `this vmhub instance already runs ${limits.max_total} live leases (leases.max_total)`);
    }
    // The principal's workspace (workspaces/attach.ts): found or made only now that the lease is
    // allowed (a refused create makes no workspace); attached with the insert.
    const workspace = request.workspace === undefined ? undefined : await prepareWorkspace(this.#store, this.#config, provider, template, principal, request.workspace, this.#actor);

    const { lease, created } = await this.#insert(template, { requestId, principal, owner, ttlMs: (input.ttl_seconds ?? limits.default_ttl_seconds) * 1000 }, from, workspace);
    if (!created) return this.#same(lease, input.template);
    return leaseView(lease);
  }

  /**
   * Start one pool machine of `template` for the pool `pool` (pools.ts), held `holdMs` ahead:
   * the same row, identity and provisioning as an agent's lease, under POOL_PRINCIPAL. Undefined
   * when the instance is at leases.max_total (a pool never pushes agents out).
   */
  async createPooled(template: TemplateConfig, pool: string, holdMs: number): Promise<LeaseRow | undefined> {
    if ((await this.#store.countLeases({ status: LIVE_LEASE_STATES })) >= this.#config.leases.max_total) return undefined;
    const { lease } = await this.#insert(template, { requestId: `pool:${randomUUID()}`, principal: POOL_PRINCIPAL, owner: pool, ttlMs: holdMs });
    return lease;
  }

  /**
   * Insert a provisioning lease (with its lease.created event) and provision it in the background;
   * `from`: a fork's snapshot (its lease.created names it, and a snapshot.forked event on the
   * snapshot's lease names the fork).
   */
  async #insert(template: TemplateConfig, who: { requestId: string; principal: string; owner: string; ttlMs: number }, from?: SnapshotRow, workspace?: WorkspaceRow): Promise<{ lease: LeaseRow; created: boolean }> {
    const limits = this.#config.leases;
    const now = Date.now();
    const id = randomUUID();
    const maxExpires = now + limits.max_lifetime_seconds * 1000;
    const { lease, created } = await this.#store.createLease({
      id,
      request_id: who.requestId,
      template: template.id,
      provider: template.provider,
      adapter: template.adapter,
      owner: who.owner,
      principal: who.principal,
      status: 'provisioning',
      identity: machineIdentity(this.#config.instance, id),
      created_at: now,
      expires_at: Math.min(now + who.ttlMs, maxExpires),
      max_expires_at: maxExpires,
      deadline_at: now + limits.provision_timeout_seconds * 1000,
      stages: JSON.stringify([{ name: 'create', status: 'pending' }]),
    }, { event: { actor: this.#actor, data: { template: template.id, owner: who.owner, principal: who.principal, request_id: who.requestId, ...(from ? { from_snapshot: from.id } : {}), ...(workspace ? { workspace: workspace.id } : {}) } }, ...(workspace ? { workspace: workspace.id } : {}) }).catch((err: unknown) => { throw heldError(err); });
    if (created && from) await this.#store.appendEvent({ lease_id: from.lease_id, actor: this.#actor, kind: 'snapshot.forked', data: { snapshot: from.id, lease: id } });
    // The row and its lease.created event committed together.
    if (created && workspace) void measureWorkspace(this.#store, this.#registry.providers.get(template.provider), workspace);
    if (created) this.#track(provision(this.#deps, lease, template, from && snapshotRef(from), workspace && workspaceRef(workspace)).catch((err) => log('warn', 'provisioning stopped: the store could not record it; the lease is failed and its machine destroyed once its claim or deadline lapses', { lease: id, error: (err as Error).message })));
    return { lease, created };
  }

  /**
   * Take a ready machine from the template's warm pool for this request (undefined: none ready,
   * or no pool). The lease keeps its id and identity and becomes the caller's, with the caller's
   * TTL and a max lifetime counted from now.
   */
  async #claimWarm(template: TemplateConfig, requestId: string, principal: string, owner: string, ttlSeconds: number | undefined): Promise<LeaseInfo | undefined> {
    const pool = this.#pools?.poolOf(template);
    if (!pool) return undefined;
    const limits = this.#config.leases;
    const now = Date.now();
    const maxExpires = now + limits.max_lifetime_seconds * 1000;
    let row: LeaseRow | undefined;
    try {
      row = await this.#store.claimPooled({
        template: template.id, pool, request_id: requestId, principal, owner,
        expires_at: Math.min(now + (ttlSeconds ?? limits.default_ttl_seconds) * 1000, maxExpires), max_expires_at: maxExpires, actor: this.#actor,
      });
    } catch (err) {
      // The request_id was taken meanwhile (a concurrent call): that call's lease is the answer.
      const raced = await this.#store.getLeaseByRequest(requestId, principal);
      if (raced) return this.#same(raced, template.id);
      throw err;
    }
    this.#pools?.claimed(template.id);
    if (!row) return undefined;
    this.#deps.changes.changed(row.id);
    return leaseView(row);
  }

  #same(row: LeaseRow, template: string): LeaseInfo {
    if (row.template !== template) throw new VmhubError('ALREADY_EXISTS', `request_id "${row.request_id}" already names lease ${row.id} on template ${row.template}, not ${template}`);
    return leaseView(row);
  }

  /**
   * The lease, expired on the way when it is past due. With `principal` (every agent call), a
   * lease of another principal — a warm pool's unclaimed machine included — is NOT_FOUND, the
   * same answer as an id that never existed; undefined is the shell's view (`vmhub-server
   * leases`, run by the store's owner), which sees all.
   */
  async get(leaseId: string, principal?: string): Promise<LeaseRow> {
    return this.#visible(leaseId, await this.#store.getLease(leaseId), principal);
  }

  /**
   * `get`, and the mapping of the lease's latest screenshot (JSON; undefined before any) in the
   * same store read: what an agent call reads when it binds (LeaseSessions.bind).
   */
  async getWithScreen(leaseId: string, principal?: string): Promise<{ lease: LeaseRow; screen: string | undefined }> {
    const read = await this.#store.getLeaseWithScreen(leaseId);
    return { lease: await this.#visible(leaseId, read?.lease, principal), screen: read?.screen };
  }

  #visible(leaseId: string, row: LeaseRow | undefined, principal: string | undefined): Promise<LeaseRow> {
    if (!row || (principal !== undefined && row.principal !== principal)) throw new VmhubError('NOT_FOUND', `no lease "${leaseId}"`, { hint: 'vm_lease_list lists your leases.' });
    return this.#expireIfDue(row);
  }

  /** A live lease past its expiry is marked expired here; the reaper destroys its machine. */
  async #expireIfDue(row: LeaseRow): Promise<LeaseRow> {
    if (LIVE_LEASE_STATES.includes(row.status as never) && row.status !== 'releasing' && pastDue(row)) {
      const expired = await this.#store.transition(row.id, [row.status as LeaseStatus], 'expired');
      if (expired) {
        this.#deps.provisioning.get(row.id)?.abort();
        await this.#deps.onEnd(row.id, 'expired').catch(() => undefined);
        await this.#store.appendEvent({ lease_id: row.id, actor: this.#actor, kind: 'lease.expired' });
        void reapExpired(this.#deps, row.id);
        return expired;
      }
      return (await this.#store.getLease(row.id)) ?? row;
    }
    return row;
  }

  async status(input: ToolInput<'vm_lease_status'>, extra: CallExtra, principal: string): Promise<LeaseStatusInfo> {
    let row = await this.get(input.lease_id, principal);
    // A ready lease whose machine was removed or stopped behind our back says so (failed, MACHINE_LOST).
    if (row.status === 'ready' && await checkMachine(this.#lostDeps(), row, false)) row = (await this.#store.getLease(row.id)) ?? row;
    row = await this.#wait(row, input.wait_seconds, extra, principal);
    const info: LeaseStatusInfo = leaseView(row);
    // A person's way in (vmhub-server leases ssh) when the machine has one; a provider that cannot say has none.
    if (row.status === 'ready' && await leaseSsh(this.#store, this.#registry, row).catch(() => undefined)) info.access = { ssh: sshCommandLine(row.id, row.principal) };
    // What the machine uses now, only where it runs (a lease being made or restarted has no figures yet).
    if (input.stats && row.status === 'ready') info.stats = await machineStats(this.#store, this.#registry, row, this.template(row.template));
    return info;
  }

  /**
   * vm_lease_restart (restart.ts): the reboot started — the lease `starting`, its calls held at
   * `sessions`' gate — then waited on like vm_lease_status {wait_seconds: 25}, progress included.
   */
  async restart(input: ToolInput<'vm_lease_restart'>, extra: CallExtra, principal: string, sessions: RestartGate): Promise<LeaseInfo> {
    const row = await this.get(input.lease_id, principal);
    await startRestart(this.#deps, sessions, row, this.template(row.template), input.hard === true);
    return leaseView(await this.#wait(await this.get(row.id, principal), MAX_WAIT_SECONDS, extra, principal));
  }

  /** vm_logs (logs.ts): the lease's console log or its events, whatever its status. */
  async logs(input: ToolInput<'vm_logs'>, principal: string): Promise<ToolOutput<'vm_logs'>> {
    return leaseLogs(this.#store, this.#registry, await this.get(input.lease_id, principal), input);
  }

  /**
   * vm_lease_create {wait_seconds}: the lease create answered (made now, found by its request_id,
   * or claimed from a warm pool), waited on exactly as vm_lease_status {wait_seconds} waits —
   * progress included — and returned as it is at the end of the wait. No wait asked, or a lease
   * already out of provisioning/starting: create's own answer.
   */
  async waitCreated(lease: LeaseInfo & { lease_ids?: string[] }, waitSeconds: number | undefined, extra: CallExtra, principal: string): Promise<LeaseInfo & { lease_ids?: string[] }> {
    if (!waitSeconds || !ACTIVE.includes(lease.status as LeaseStatus)) return lease;
    // A fork of several: the wait is on the first (each is ready about as fast); lease_ids names all.
    const waited = leaseView(await this.#wait(await this.get(lease.lease_id, principal), waitSeconds, extra, principal));
    return lease.lease_ids ? { ...waited, lease_ids: lease.lease_ids } : waited;
  }

  /** wait.ts's bounded wait, re-reading the lease as this principal (expired on the way when due). */
  #wait(row: LeaseRow, seconds: number | undefined, extra: CallExtra, principal: string): Promise<LeaseRow> {
    return waitWhileMade(this.#deps.changes, row, seconds, extra, (id) => this.get(id, principal));
  }

  /** `principal` undefined: the shell's renew (`vmhub-server leases renew`), any lease. */
  async renew(input: ToolInput<'vm_lease_renew'>, principal: string | undefined): Promise<LeaseInfo> {
    const row = await this.get(input.lease_id, principal);
    if (!['provisioning', 'starting', 'ready'].includes(row.status)) throw new VmhubError('LEASE_EXPIRED', `lease ${row.id} is ${row.status} and cannot be renewed`);
    const now = Date.now();
    const wanted = now + (input.ttl_seconds ?? this.#config.leases.default_ttl_seconds) * 1000;
    const expires = Math.min(wanted, row.max_expires_at);
    const updated = await this.#store.updateLease(row.id, { expires_at: Math.max(expires, row.expires_at) }, ['provisioning', 'starting', 'ready']);
    if (!updated) throw new VmhubError('LEASE_EXPIRED', `lease ${row.id} ended while renewing`);
    await this.#store.appendEvent({ lease_id: row.id, actor: this.#actor, kind: 'lease.renewed', data: { expires_at: updated.expires_at, capped: wanted > row.max_expires_at } });
    return leaseView(updated);
  }

  /** `principal` undefined: the shell's release (`vmhub-server leases release`), any lease. */
  async release(input: ToolInput<'vm_lease_release'>, principal: string | undefined): Promise<LeaseInfo> {
    return release(this.#deps, await this.get(input.lease_id, principal));
  }

  /** A call on this ready lease failed: is its machine gone? (MACHINE_LOST after ending the lease.) */
  async machineLost(leaseId: string): Promise<VmhubError | undefined> {
    const row = await this.#store.getLease(leaseId);
    if (row?.status === 'failed' && row.error_code === 'MACHINE_LOST') return machineLostError(row);
    return row ? checkMachine(this.#lostDeps(), row, true) : undefined;
  }

  #lostDeps() {
    return { store: this.#store, provider: (id: string) => this.#registry.providers.get(id), actor: this.#actor, end: this.#deps.onEnd };
  }

  /** Leases this process is provisioning right now (leak tests: none left once they settle). */
  inFlight(): number {
    return this.#deps.provisioning.size;
  }

  /**
   * Shutdown (SIGTERM/SIGINT, runtime.close()): abort in-flight provisioning and abandon it to the
   * reaper. Nothing is recorded — no `failed` with an abort message beside a machine that may still
   * exist: each lease stays provisioning/starting, its claim stops being renewed and lapses (20 s),
   * and the reaper then fails it (PROVISION_FAILED) and destroys its machine by identity.
   */
  abortAll(): void {
    this.#closing = true;
    for (const c of this.#deps.provisioning.values()) c.abort();
  }

  /**
   * Resolves once every provisioning run this process started — the ones started meanwhile too —
   * has ended (ready, failed and torn down, or released and torn down). Each is bounded by its
   * template's ready timeout. stdin closing waits on this before the server exits (cli.ts).
   */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  #track(work: Promise<void>): void {
    this.#running.add(work);
    const done = () => void this.#running.delete(work);
    work.then(done, done);
  }

  /**
   * Leases newest first, at most `cap` (`truncated` says there were more); live ones past their
   * expiry are expired on the way, as `get` does. vm_lease_list always passes its caller's
   * principal; only the shell (`vmhub-server leases list`, run by the store's owner) passes none.
   */
  async list(filter: { principal: string | undefined; owner?: string; status?: readonly LeaseStatus[] }, cap = 100): Promise<{ leases: LeaseRow[]; truncated: boolean }> {
    const rows = await this.#store.listLeases({ principal: filter.principal, owner: filter.owner, status: filter.status, newestFirst: true, limit: cap + 1 });
    // The principal is the boundary between agents: held here too, whatever the store filtered.
    const visible = rows.filter((r) => filter.principal === undefined || r.principal === filter.principal);
    const leases: LeaseRow[] = [];
    for (const row of visible.slice(0, cap)) {
      const current = await this.#expireIfDue(row);
      if (!filter.status || filter.status.includes(current.status)) leases.push(current);
    }
    return { leases, truncated: visible.length > cap };
  }
}
