/**
 * One lease's session in this process: everything per-lease lives here and nowhere else — the
 * provider's channel and console (opened once, on first use), the screen mapping of the latest
 * screenshot, the adapter's own session (`adapter.open(lease)`), and the state other parts keep
 * per lease (`state(key)`: the live view's frame generation and pointer, the recording's write
 * queue). `dispose()` runs exactly once: detached commands are killed, then the adapter session
 * ends (it may still need the channel to clean up), then the channel and the console, then each
 * kept state's `end`. After it, nothing opens again. A restore to a snapshot (`restored()`) resets
 * the screen mapping and the connections, and the adapter session hears of it before the next call.
 */
import { GuestPorts, VmhubError, type Adapter, type AdapterContext, type ConsoleHandle, type GuestChannel, type LeaseContext, type MachineRef, type OpenSession, type Provider, type TemplateConfig } from '@vmhub/core';
import { DetachedJobs, type JobLedger, type ScreenState } from '@vmhub/core/router';
import { log } from '../log.ts';

/**
 * A kind of state another part keeps per lease in the session (so it ends with the lease, in
 * this process): made by `make` on first use, ended by `end` (awaited, never throwing) in dispose.
 */
export interface LeaseStateKey<T> {
  readonly name: string;
  make(leaseId: string): T;
  end?(value: T): void | Promise<void>;
  /** The state still does work on the lease (a viewer watches it): its session is not idle. */
  busy?(value: T): boolean;
}

export class LeaseSession {
  readonly lease_id: string;
  readonly template: TemplateConfig;
  readonly screen: ScreenState = {};
  /** Commands started with vm_exec {detach: true}; killed when the lease ends; ids kept in `ledger`. */
  readonly jobs: DetachedJobs;
  readonly lease: LeaseContext;
  readonly #provider: Provider | undefined;
  readonly #adapter: Adapter | undefined;
  #channel: Promise<GuestChannel> | undefined;
  #console: Promise<ConsoleHandle> | undefined;
  #session: Promise<OpenSession> | undefined;
  readonly #ports: GuestPorts;
  #opened = 0;
  /** Restored to a snapshot since the adapter session last heard (AdapterSession.restored). */
  #restoredPending = false;
  #disposing: Promise<void> | undefined;
  /** The adapter session's dispose is running: the channel and console stay reachable for its cleanup. */
  #adapterEnding = false;
  readonly #kept = new Map<LeaseStateKey<unknown>, unknown>();
  /** When a call last bound the lease through this session (ms). */
  #usedAt = Date.now();
  /** The screen mapping as this session last read it from the store or wrote it there (JSON). */
  #sharedScreen: string | undefined;

  constructor(leaseId: string, machine: MachineRef, template: TemplateConfig, provider: Provider | undefined, adapter: Adapter | undefined, ledger?: JobLedger) {
    this.lease_id = leaseId;
    this.jobs = new DetachedJobs(ledger);
    this.template = template;
    this.#provider = provider;
    this.#adapter = adapter;
    this.#ports = new GuestPorts((port, signal) => {
      if (!provider?.connect) return Promise.reject(new VmhubError('CAPABILITY_UNAVAILABLE', `provider "${template.provider}" cannot reach ports inside its machines (template ${template.id})`));
      return provider.connect(machine, port, { template, signal });
    }, { tcp: template.forward_tcp === true });
    this.lease = {
      lease_id: leaseId,
      machine,
      template,
      channel: () => this.#openChannel(machine),
      console: () => this.#openConsole(machine),
      connect: (port) => { this.#alive(); return this.#ports.connect(port); },
      forward: (port) => { this.#alive(); return this.#ports.forward(port); },
      secret: async (name) => { this.#alive(); return provider?.secret ? provider.secret(machine, name, { template }) : undefined; },
      framebuffer: async () => { this.#alive(); return provider?.framebuffer ? provider.framebuffer(machine, { template }) : undefined; },
    };
  }

  get disposed(): boolean {
    return this.#disposing !== undefined;
  }

  /** Channels, consoles, guest-port streams and forwards this session holds open. */
  get channels(): number {
    return this.#opened + this.#ports.open;
  }

  /** The adapter's session for this lease, opened on first use; undefined when no adapter is loaded. */
  adapterSession(): Promise<OpenSession> | undefined {
    if (!this.#adapter) return undefined;
    this.#alive();
    if (!this.#session) {
      const opening = this.#adapter.open(this.lease);
      opening.catch(() => { if (this.#session === opening) this.#session = undefined; });
      this.#session = opening;
    }
    return this.#session;
  }

  /**
   * The machine went back to a snapshot (vm_snapshot restore): the screen mapping is reset, the
   * channel and console — stale now — are closed (the next use opens new ones), and the adapter
   * session hears of it before the next call uses it (settleRestore).
   */
  async restored(): Promise<void> {
    this.#alive();
    for (const key of Object.keys(this.screen) as (keyof ScreenState)[]) delete this.screen[key];
    this.#restoredPending = true;
    const stale = [this.#channel, this.#console];
    this.#channel = undefined;
    this.#console = undefined;
    await Promise.all(stale.map((p) => this.#close(p)));
  }

  /** Tell the adapter session of a restore since the last call (once); never throws. */
  async settleRestore(ctx: AdapterContext): Promise<void> {
    if (!this.#restoredPending) return;
    this.#restoredPending = false;
    const session = await this.#session?.catch(() => undefined);
    try { await session?.restored?.(ctx); } catch (err) { log('warn', 'the adapter session failed to take a restore; it keeps going', { lease: this.lease_id, error: (err as Error).message }); }
  }

  /** A call binds the lease through this session now. */
  touch(): void {
    this.#usedAt = Date.now();
  }

  /**
   * How long no call has bound the lease, or 0 while the session still holds work there: a
   * detached command, a guest port stream or forward, a state that says it is busy (a live
   * viewer). Calls in flight are the gate's to count (LeaseSessions).
   */
  idleMs(now = Date.now()): number {
    if (this.jobs.running > 0 || this.#ports.open > 0) return 0;
    for (const [key, value] of this.#kept) if (key.busy?.(value)) return 0;
    return Math.max(0, now - this.#usedAt);
  }

  /**
   * The store's screen mapping of the lease (another process's latest screenshot, JSON), read at
   * bind: adopted when it is not what this session last read or wrote — and then the marks and
   * the change baseline of this session's older screenshot are dropped (they belong to a screen
   * the agent no longer looks at).
   */
  adoptScreen(stored: string | undefined): void {
    if (stored === undefined || stored === this.#sharedScreen) return;
    this.#sharedScreen = stored;
    try {
      this.screen.latest = JSON.parse(stored) as ScreenState['latest'];
    } catch {
      return;
    }
    delete this.screen.marks;
    delete this.screen.frame;
    delete this.screen.baseline;
  }

  /** After a call: the mapping, when this session's call changed it, written through `write` (the store). */
  async shareScreen(write: (mapping: string) => Promise<void>): Promise<void> {
    const latest = this.screen.latest ? JSON.stringify(this.screen.latest) : undefined;
    if (latest === undefined || latest === this.#sharedScreen) return;
    await write(latest);
    this.#sharedScreen = latest;
  }

  /** The state `key` keeps for this lease, made on first use; LEASE_EXPIRED once the session ended. */
  state<T>(key: LeaseStateKey<T>): T {
    this.#alive();
    if (!this.#kept.has(key)) this.#kept.set(key as LeaseStateKey<unknown>, key.make(this.lease_id));
    return this.#kept.get(key as LeaseStateKey<unknown>) as T;
  }

  #alive(): void {
    // While the adapter session ends it may still reach the machine (release held keys, give back
    // bound keycodes: AdapterSession.dispose); after it, nothing may.
    if (this.#disposing && !this.#adapterEnding) throw new VmhubError('LEASE_EXPIRED', `lease ${this.lease_id} has ended`, { hint: 'Create a new lease (vm_lease_create).' });
  }

  #openChannel(machine: MachineRef): Promise<GuestChannel> {
    this.#alive();
    if (!this.#channel) {
      if (!this.#provider?.channel) return Promise.reject(new VmhubError('CAPABILITY_UNAVAILABLE', `provider "${this.template.provider}" offers no guest channel for template ${this.template.id}`));
      this.#channel = this.#track(this.#provider.channel(machine, this.template), () => { this.#channel = undefined; });
    }
    return this.#channel;
  }

  #openConsole(machine: MachineRef): Promise<ConsoleHandle> {
    this.#alive();
    if (!this.#console) {
      if (!this.#provider?.console) return Promise.reject(new VmhubError('CAPABILITY_UNAVAILABLE', `provider "${this.template.provider}" offers no console for template ${this.template.id}`));
      this.#console = this.#track(this.#provider.console(machine), () => { this.#console = undefined; });
    }
    return this.#console;
  }

  /** Count an opening connection once it is open; a failed one is forgotten so the next use retries. */
  #track<T extends { close(): Promise<void> }>(opening: Promise<T>, forget: () => void): Promise<T> {
    const counted = opening.then((c) => {
      this.#opened++;
      // Opened after dispose began (a call raced the end of the lease): close it at once.
      if (this.#disposing && !this.#adapterEnding) void c.close().catch(() => undefined).then(() => { this.#opened--; });
      return c;
    });
    counted.catch(forget);
    return counted;
  }

  /** Close an opened channel or console (counted open); never throws. */
  async #close(opening: Promise<{ close(): Promise<void> }> | undefined): Promise<void> {
    const c = await opening?.catch(() => undefined);
    if (!c) return;
    try { await c.close(); } catch (err) { log('warn', 'closing a lease connection failed', { lease: this.lease_id, error: (err as Error).message }); }
    this.#opened--;
  }

  /** End the session: adapter state, then channel and console. Idempotent; never throws. */
  dispose(reason: string): Promise<void> {
    this.#disposing ??= (async () => {
      this.jobs.dispose();
      const session = await this.#session?.catch(() => undefined);
      this.#adapterEnding = true;
      try { await session?.dispose(); } finally { this.#adapterEnding = false; }
      await Promise.all([this.#channel, this.#console].map((p) => this.#close(p)));
      await this.#ports.close();
      for (const [key, value] of this.#kept) {
        try { await key.end?.(value); } catch (err) { log('warn', 'ending a lease state failed', { lease: this.lease_id, state: key.name, error: (err as Error).message }); }
      }
      this.#kept.clear();
      log('debug', 'lease session disposed', { lease: this.lease_id, reason });
    })();
    return this.#disposing;
  }
}
