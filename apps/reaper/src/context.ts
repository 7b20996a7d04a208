/**
 * Everything one pass needs, injected: the store, the providers this reaper reached, its
 * settings. The pass itself owns no globals, so tests and the benchmark run it in-process.
 */
import type { Provider } from '@vmhub/core';
import type { Store } from '@vmhub/store';
import type { Logger } from './log.ts';

export interface PassSettings {
  /** Unique per process (`reaper:<host>:<pid>:<rand>`): a claim names its holder. */
  reaperId: string;
  /** `vmhub-<instance>-`: only machines carrying it are ever considered. */
  identityPrefix: string;
  /** How long a teardown claim lasts; renewed every third of it while the work runs. */
  claimMs: number;
  /** Orphans younger than this are left alone. */
  orphanGraceMs: number;
  /** A releasing lease whose claim lapsed this long ago (or a finished lease whose machine still runs) is taken over. */
  stuckGraceMs: number;
  /** Deadline for provisioning leases that carry no deadline_at of their own (from created_at). */
  provisionTimeoutMs: number;
  /** Upper bound on one provider call (list, status, destroy). */
  callTimeoutMs: number;
  /** Teardowns run at once. */
  concurrency: number;
}

export interface PassContext {
  store: Store;
  /** Providers created from discovered plugins and the config, by provider id. */
  providers: ReadonlyMap<string, Provider>;
  /** Provider ids the config names (providers, templates): a failing list() on them is an error. */
  configured: ReadonlySet<string>;
  /** Provider ids whose plugin could not be loaded or created, with the reason. */
  unavailable: ReadonlyMap<string, string>;
  settings: PassSettings;
  log: Logger;
}

/** States in which a lease still owns its machine; states whose machine must be gone (core's lists). */
export { LIVE_LEASE_STATES as LIVE, FINAL_LEASE_STATES as FINAL } from '@vmhub/core';
/** Machine states after which there is nothing left for the reaper to do (the store's list). */
export { SETTLED_MACHINE_STATES as MACHINE_DONE } from '@vmhub/store';

export function isIn(list: readonly string[], value: string): boolean {
  return list.includes(value);
}
