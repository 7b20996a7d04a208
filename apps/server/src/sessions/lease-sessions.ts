/**
 * The lease sessions of this process, one per live lease that a tool call has touched. Binding a
 * call to its lease goes through here: a ready lease gets (or reuses) its session; any other
 * state disposes the session it may still have and answers the typed error.
 *
 * A session is disposed exactly once in every terminal state: the lease manager ends it on
 * release, expiry and failure; a sweep ends sessions whose lease another process moved on (the
 * reaper reaped it, another server released it) or whose machine row is gone; shutdown ends all.
 *
 * Every bind passes the lease's gate (lease-gate.ts): while a restore replaces the machine under
 * the session (`exclusive`), binds wait; an agent's call (`{inFlight: true}`) is counted until its
 * binding's `release()`, and a restore waits for those before it starts.
 */
import { VmhubError } from '@vmhub/core';
import type { LeaseBinding } from '@vmhub/core/router';
import type { LeaseRow, Store } from '@vmhub/store';
import type { LeaseManager } from '../leases/manager.ts';
import { machineLostError } from '../leases/machine-lost.ts';
import { machineRef } from '../leases/teardown.ts';
import { log } from '../log.ts';
import type { Registry } from '../registry.ts';
import { jobLedger } from './job-ledger.ts';
import { LeaseGates } from './lease-gate.ts';
import { LeaseSession } from './lease-session.ts';

/** Why a call cannot use a lease that is not ready: LEASE_NOT_READY, MACHINE_LOST, PROVISION_FAILED or LEASE_EXPIRED. */
export function notReadyError(lease: LeaseRow): VmhubError {
  switch (lease.status) {
    case 'provisioning':
    case 'starting':
      return new VmhubError('LEASE_NOT_READY', `lease ${lease.id} is ${lease.status}; wait with vm_lease_status {wait_seconds: 20}`);
    case 'failed':
      if (lease.error_code === 'MACHINE_LOST') return machineLostError(lease);
      return new VmhubError('PROVISION_FAILED', `lease ${lease.id} failed: ${lease.error_message ?? lease.error_code ?? 'unknown'}`, { hint: 'Create a new lease (vm_lease_create).' });
    default:
      return new VmhubError('LEASE_EXPIRED', `lease ${lease.id} is ${lease.status}`);
  }
}

/** How often open sessions are checked against the store. */
const SWEEP_MS = 5_000;

export class LeaseSessions {
  readonly #open = new Map<string, LeaseSession>();
  readonly #gates = new LeaseGates();
  readonly #store: Store;
  readonly #registry: Registry;
  #leases!: LeaseManager;
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  /** A session unused this long, holding no work, is closed (0: never); config leases.session_idle_seconds. */
  readonly #idleMs: number;

  constructor(store: Store, registry: Registry, options: { idleMs?: number } = {}) {
    this.#store = store;
    this.#registry = registry;
    this.#idleMs = options.idleMs ?? 0;
  }

  attach(leases: LeaseManager): void {
    this.#leases = leases;
  }

  /** Open sessions and the channels/consoles they hold (vm_health, leak tests). */
  counts(): { open: number; channels: number } {
    let channels = 0;
    for (const s of this.#open.values()) channels += s.channels;
    return { open: this.#open.size, channels };
  }

  /** The lease's open session, if a call has opened one (the live view reads its control). */
  get(leaseId: string): LeaseSession | undefined {
    return this.#open.get(leaseId);
  }

  /**
   * `principal`: the caller's (every agent call passes it): another principal's lease — a warm
   * pool's unclaimed machine included — is NOT_FOUND before anything is opened. Undefined: the
   * server's own use (the recorder's frame captures of a lease already bound).
   */
  async bind(leaseId: string, signal: AbortSignal, principal: string | undefined, options: { inFlight?: boolean } = {}): Promise<LeaseBinding> {
    // A foreign or unknown id is refused before it touches a gate. The lease's screen mapping
    // comes in the same read (another process may have taken the latest screenshot).
    const { lease: known, screen } = await this.#leases.getWithScreen(leaseId, principal);
    let release: (() => void) | undefined;
    let waited: boolean;
    if (options.inFlight) ({ leave: release, waited } = await this.#gates.enter(known.id, signal));
    else waited = await this.#gates.pass(known.id, signal);
    try {
      // Read again only after waiting at the gate: the restore that held it may have ended the lease.
      const lease = waited ? await this.#leases.get(leaseId, principal) : known;
      if (lease.status !== 'ready') {
        await this.end(leaseId, lease.status);
        throw notReadyError(lease);
      }
      const session = this.#open.get(leaseId) ?? await this.#openSession(leaseId, lease.template);
      session.touch();
      session.adoptScreen(screen);
      const context = { ...session.lease, signal };
      await session.settleRestore(context);
      const adapter = this.#registry.adapterFor(session.template);
      const missing = adapter ? undefined : this.#registry.missing(session.template);
      return {
        lease_id: lease.id,
        expires_at: new Date(lease.expires_at).toISOString(),
        template: session.template,
        adapter,
        ...(missing ? { adapterProblem: missing } : {}),
        session: await session.adapterSession(),
        screen: session.screen,
        jobs: session.jobs,
        context,
        commit: () => session.shareScreen((mapping) => this.#store.setLeaseScreen(lease.id, mapping)),
        // A call counts as use until it answers: a long one is not followed at once by an idle close.
        ...(release ? { release: () => { session.touch(); release!(); } } : {}),
      };
    } catch (err) {
      release?.();
      throw err;
    }
  }

  /**
   * Run `fn` (a restore) with the lease's gate closed: new binds wait, and the agent calls in
   * flight are waited for up to `waitMs` (then LOCK_CONTENTION, nothing done). lease-gate.ts.
   */
  exclusive<T>(leaseId: string, what: string, waitMs: number, fn: () => Promise<T>): Promise<T> {
    return this.#gates.exclusive(leaseId, what, waitMs, fn);
  }

  /** Leases whose gate holds calls or an exclusive operation now (leak tests). */
  get gates(): number {
    return this.#gates.size;
  }

  /** The lease's machine went back to a snapshot: its open session (if any) resets (LeaseSession.restored). */
  async restored(leaseId: string): Promise<void> {
    await this.#open.get(leaseId)?.restored();
  }

  async #openSession(leaseId: string, templateId: string): Promise<LeaseSession> {
    const template = this.#leases.template(templateId);
    const row = await this.#store.getMachine(leaseId);
    const machine = row ? machineRef(row) : undefined;
    if (!machine) throw new VmhubError('INTERNAL', `lease ${leaseId} is ready but has no machine record`);
    // Another call may have opened it while we read the store.
    const raced = this.#open.get(leaseId);
    if (raced) return raced;
    const session = new LeaseSession(leaseId, machine, template, this.#registry.providers.get(template.provider), this.#registry.adapterFor(template), jobLedger(this.#store, leaseId));
    this.#open.set(leaseId, session);
    this.#startSweep();
    return session;
  }

  /** End a lease's session, if it has one (idempotent). */
  async end(leaseId: string, reason: string): Promise<void> {
    const session = this.#open.get(leaseId);
    if (!session) return;
    this.#open.delete(leaseId);
    if (this.#open.size === 0) this.#stopSweep();
    await session.dispose(reason);
  }

  /**
   * Dispose sessions whose lease is no longer ready in the store (moved on by another process),
   * and sessions idle past leases.session_idle_seconds: no call bound them for that long, none is
   * in flight, and they hold no work (LeaseSession.idleMs). The idle check and the end run with
   * nothing awaited between them, so a bind that takes the session first keeps it open.
   */
  sweep(): Promise<void> {
    this.#sweeping ??= (async () => {
      try {
        for (const id of [...this.#open.keys()]) {
          // A store that cannot be read now (PostgreSQL down) says nothing about the lease: keep its session.
          const row = await this.#leases.get(id).catch((err: { code?: unknown }) => (err?.code === 'STORE_UNAVAILABLE' ? 'unknown' as const : undefined));
          if (row === 'unknown') continue;
          if (!row || row.status !== 'ready') { await this.end(id, row?.status ?? 'gone'); continue; }
          const session = this.#open.get(id);
          if (session && this.#idleMs > 0 && !this.#gates.busy(id) && session.idleMs() >= this.#idleMs) {
            log('debug', 'lease session closed: idle', { lease: id, idle_seconds: this.#idleMs / 1000 });
            await this.end(id, 'idle');
          }
        }
      } catch (err) {
        log('warn', 'session sweep failed; retried on the next one', { error: (err as Error).message });
      } finally {
        this.#sweeping = undefined;
      }
    })();
    return this.#sweeping;
  }

  #startSweep(): void {
    if (this.#sweeper) return;
    this.#sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.#sweeper.unref();
  }

  #stopSweep(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  async closeAll(): Promise<void> {
    this.#stopSweep();
    await Promise.allSettled([...this.#open.keys()].map((id) => this.end(id, 'shutdown')));
  }
}
