/**
 * Warm pools (config `pools.<template>`): machines made ready ahead of time and handed whole to
 * the next vm_lease_create on their template (manager.ts claims them). A pool machine is an
 * ordinary lease held by POOL_PRINCIPAL (@vmhub/store pools.ts) whose owner names its pool: the
 * template's id and a hash of its definition, so a changed template never hands out a machine
 * made from the old one. Every tick this server pushes the expiry of the pool's machines
 * `hold_seconds` ahead and starts the ones missing; what it stops holding (a killed server, a
 * changed definition, a smaller pool) expires and is destroyed by identity — by this server when
 * it sees it, else by the reaper, which owns pool machines like any other lease's.
 */
import { createHash } from 'node:crypto';
import type { TemplateConfig } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';
import { POOL_LIVE_STATUSES, POOL_PRINCIPAL, type Store } from '@vmhub/store';
import { log } from '../log.ts';
import type { Registry } from '../registry.ts';
import type { LeaseManager } from './manager.ts';

/** How often the pools are topped up and held (a claim also triggers a tick at once). */
const TICK_MS = 2000;
/** After a pool machine failed to come up, that pool waits this long before making another. */
const FAILURE_BACKOFF_MS = 30_000;

/** What a pass saw of one pool; a change of `reason` is logged (operators see why a pool is not filling). */
interface PoolState {
  ready: number;
  starting: number;
  /** Why the pool is not filling, when it is not. */
  reason?: string;
}

export class WarmPools {
  readonly #store: Store;
  readonly #registry: Registry;
  readonly #leases: LeaseManager;
  readonly #config: VmhubConfig;
  readonly #onCreated: () => void;
  readonly #keys = new Map<string, string>();
  readonly #states = new Map<string, PoolState>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(store: Store, registry: Registry, leases: LeaseManager, config: VmhubConfig, onCreated: () => void) {
    this.#store = store;
    this.#registry = registry;
    this.#leases = leases;
    this.#config = config;
    this.#onCreated = onCreated;
  }

  /** The pool owner value of a template that has a pool (`pool:<id>:<hash of its definition>`). */
  poolOf(template: TemplateConfig): string | undefined {
    if (!this.#config.pools[template.id]) return undefined;
    let key = this.#keys.get(template.id);
    if (!key) {
      key = `pool:${template.id}:${createHash('sha256').update(canonicalJson(template)).digest('hex').slice(0, 12)}`;
      this.#keys.set(template.id, key);
    }
    return key;
  }

  /** A claim was tried on this template: top its pool up now. */
  claimed(_templateId: string): void {
    void this.tick();
  }

  start(): void {
    if (Object.keys(this.#config.pools).length === 0) return;
    for (const id of Object.keys(this.#config.pools)) {
      if (!this.#registry.templates.has(id)) log('warn', 'pools: no such template offered; that pool stays empty', { template: id, templates: [...this.#registry.templates.keys()] });
    }
    void this.tick();
    this.#timer = setInterval(() => void this.tick(), TICK_MS);
    this.#timer.unref();
  }

  /** Stop filling and holding: what is left expires after hold_seconds and is reaped (a server started again with the same pools takes it back). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  /** One pass over every pool; a call during a pass runs one more pass after it. */
  tick(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running) { this.#again = true; return this.#running; }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.#pass();
        } while (this.#again && !this.#stopped);
      } catch (err) {
        log('warn', 'pools: a pass failed; the next one retries', { error: (err as Error).message });
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  async #pass(): Promise<void> {
    const now = Date.now();
    const rows = await this.#store.listLeases({ principal: POOL_PRINCIPAL, status: POOL_LIVE_STATUSES, newestFirst: true });
    const held = new Set<string>();
    for (const [id, pool] of Object.entries(this.#config.pools)) {
      const template = this.#registry.templates.get(id);
      if (!template) { this.#report(id, { ready: 0, starting: 0, reason: `no template "${id}" is offered` }); continue; }
      const key = this.poolOf(template)!;
      const holdMs = pool.hold_seconds * 1000;
      const keep = rows.filter((r) => r.owner === key && r.expires_at > now).slice(0, pool.max);
      for (const r of keep) held.add(r.id);
      if (keep.length) await this.#store.holdPooled(keep.map((r) => r.id), now + holdMs);
      const ready = keep.filter((r) => r.status === 'ready').length;
      const state: PoolState = { ready, starting: keep.length - ready };
      const missing = Math.min(pool.min_ready, pool.max) - keep.length;
      if (missing > 0 && !this.#stopped) {
        state.reason = await this.#blocked(template, key, now);
        for (let i = 0; i < missing && !state.reason; i++) {
          const made = await this.#leases.createPooled(template, key, holdMs);
          if (!made) { state.reason = `the instance is at leases.max_total (${this.#config.leases.max_total} live leases)`; break; }
          state.starting++;
          this.#onCreated();
        }
      }
      this.#report(id, state);
    }
    // Pool machines no pool holds any more (a changed definition, a smaller pool, a pool taken
    // out of the config): once expired, destroyed now rather than at the reaper's next pass.
    for (const r of rows) {
      if (!held.has(r.id) && r.expires_at <= now) void this.#leases.get(r.id).catch(() => undefined);
    }
  }

  #report(template: string, state: PoolState): void {
    const before = this.#states.get(template);
    this.#states.set(template, state);
    if (state.reason && state.reason !== before?.reason) log('warn', 'pools: not filling', { template, ready: state.ready, starting: state.starting, reason: state.reason });
    else if (!state.reason && before?.reason) log('info', 'pools: filling again', { template });
  }

  /** Why the pool may not make a machine now: the template unavailable, or a recent failure. */
  async #blocked(template: TemplateConfig, key: string, now: number): Promise<string | undefined> {
    const missing = this.#registry.missing(template);
    if (missing) return missing;
    const availability = await this.#registry.providers.get(template.provider)!.availability(template).catch((err: Error) => ({ availability: 'unavailable', reason: err.message }));
    if (availability.availability !== 'available') return `${template.id} is ${availability.availability}: ${availability.reason ?? 'no reason given'}`;
    const [failed] = await this.#store.listLeases({ principal: POOL_PRINCIPAL, owner: key, status: ['failed'], newestFirst: true, limit: 1 });
    if (failed && failed.updated_at > now - FAILURE_BACKOFF_MS) return `a pool machine failed ${Math.round((now - failed.updated_at) / 1000)} s ago (${failed.error_code}: ${failed.error_message ?? ''}); retrying ${FAILURE_BACKOFF_MS / 1000} s after it`;
    return undefined;
  }
}

/** JSON with object keys sorted: the same definition hashes the same whatever its key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
