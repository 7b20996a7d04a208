/**
 * What the lease manager's parts share (manager.ts composes them): the store, the plugins, this
 * process's actor name, the provisioning runs it holds, and how a lease's session is ended.
 * create/status/list stay in manager.ts; provisioning is provision.ts, release and the
 * teardowns it hands off are release.ts, bounded waits are wait.ts.
 */
import type { VmhubConfig } from '@vmhub/core/config';
import type { LeaseStatus, Store } from '@vmhub/store';
import type { Registry } from '../registry.ts';
import type { LeaseChanges } from './changes.ts';

/** How long a teardown claim holds before another process (the reaper) may take the work over. */
export const CLAIM_MS = 60_000;
/**
 * A provisioning process holds a claim on its lease and renews it every third of this: if the
 * process dies, the claim lapses and the reaper fails the lease and destroys its machine.
 */
export const PROVISION_CLAIM_MS = 20_000;
/** The statuses in which a lease is still being made. */
export const ACTIVE: readonly LeaseStatus[] = ['provisioning', 'starting'];

export interface LeaseDeps {
  readonly store: Store;
  readonly registry: Registry;
  readonly config: VmhubConfig;
  /** `server:<host>:<pid>`: the actor of this process's events and claims. */
  readonly actor: string;
  /** Provisioning runs of this process, by lease id: abort one to stop it. */
  readonly provisioning: Map<string, AbortController>;
  /** This process's lease changes (wakes waits). */
  readonly changes: LeaseChanges;
  /** Ends the lease's session in this process (release, expiry, failure): see sessions/. */
  onEnd(leaseId: string, reason: string): Promise<void>;
  /** Work settled() waits for (provisioning runs and the teardowns they hand off). */
  track(work: Promise<void>): void;
  /** Set once the process is shutting down (abortAll): an abort then abandons work to the reaper. */
  closing(): boolean;
}
