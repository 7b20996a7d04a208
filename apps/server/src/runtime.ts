/**
 * The server's runtime: store, plugins, lease manager, catalog. It starts in the background while
 * the MCP handshake is answered (an MCP client pays for the server's cold start before it can do
 * anything, and `initialize` and `tools/list` need none of this); tool calls wait for it.
 */
import type { VmhubConfig } from '@vmhub/core/config';
import type { Store } from '@vmhub/store';
import { Catalog } from './catalog.ts';
import { githubRuntime, type GithubRuntime } from './github/runtime.ts';
import { log } from './log.ts';
import { LeaseManager } from './leases/manager.ts';
import { WarmPools } from './leases/pools.ts';
import { reaperStarter, type ReaperStarter } from './reaper-starter.ts';
import { Registry } from './registry.ts';
import { LeaseSessions } from './sessions/lease-sessions.ts';
import { Snapshots } from './snapshots/service.ts';

export interface Runtime {
  store: Store;
  registry: Registry;
  sessions: LeaseSessions;
  /** Starts a detached reaper for this store when leases exist and none runs. */
  reaper: ReaperStarter;
  leases: LeaseManager;
  /** vm_snapshot (snapshots/). */
  snapshots: Snapshots;
  /** Warm pools (config `pools`): ready machines vm_lease_create hands out whole. */
  pools: WarmPools;
  catalog: Catalog;
  /** The GitHub App and its token refresher, when github_app is configured. */
  github: GithubRuntime | undefined;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /**
   * Background work of a serving process: warm pools filled and held, and a reaper started for
   * leases left live by an earlier server. Default true. A one-shot command (`vmhub-server
   * leases …`) passes false: it starts no pool machine and no reaper (a reaper it started would
   * outlive it, and a pool lease it made would be held by nobody once it exits).
   */
  background?: boolean;
}

export async function startRuntime(config: VmhubConfig, from: string, options: RuntimeOptions = {}): Promise<Runtime> {
  const background = options.background ?? true;
  // Loaded here, not at module load: better-sqlite3 and kysely are not needed to answer `initialize`.
  const { defaultStatePath, openStore, stateDirOf } = await import('@vmhub/store');
  const { revokeLeaseCredentials } = await import('@vmhub/reaper');
  // VMHUB_DB as given (a PostgreSQL URL with its password): only the store and the reaper's env see it.
  const db = config.db ?? defaultStatePath();
  // Opening connects nothing: a PostgreSQL store that is down makes tool calls answer
  // STORE_UNAVAILABLE until it is back, and never stops the server from starting.
  const [store, registry] = await Promise.all([
    Promise.resolve().then(() => openStore({ path: db })),
    // Providers keep per-lease files (SSH keys) in the same state directory as the reaper's.
    Registry.load(config, from, stateDirOf(db)),
  ]);
  const sessions = new LeaseSessions(store, registry, { idleMs: config.leases.session_idle_seconds * 1000 });
  // Every terminal state the manager reaches ends the lease's session here, and revokes what was
  // made for the lease (its GitHub tokens; bounded, never throws: what fails, the reaper retries).
  const leases = new LeaseManager(store, registry, config, async (leaseId, reason) => {
    await revokeLeaseCredentials(store, leaseId, { log });
    await sessions.end(leaseId, reason);
  });
  sessions.attach(leases);
  // With github_app: the App, and timers that keep a long lease's push token alive (github/refresh.ts).
  const github = githubRuntime(config, store, sessions);
  const reaper = reaperStarter(store, { db, enabled: background && config.reaper.autostart, configFile: (config as { source?: string | null }).source ?? null });
  // A pool machine is a lease like any other: a reaper must be there to reap it if we die.
  const pools = new WarmPools(store, registry, leases, config, () => void reaper.ensure('pool machine created'));
  leases.attachPools(pools);
  const snapshots = new Snapshots({ store, registry, config, leases, sessions, actor: leases.actor });
  const catalog = new Catalog(registry, store, leases, sessions, snapshots);
  // Leases left live by an earlier server (it died with its client): make sure someone reaps them.
  // A store that is unreachable now is not checked again here: the next lease created starts a reaper.
  if (background) {
    void store.hasWork().then((work) => { if (work) void reaper.ensure('live leases at start'); }, () => undefined);
    // Tokens of leases an earlier process served are kept alive from here on.
    if (github) void store.listLeases({ status: ['ready'] }).then((ready) => ready.forEach((l) => void github.tokens.watch(l.id)), () => undefined);
    pools.start();
  }
  return {
    store, registry, sessions, leases, snapshots, pools, catalog, reaper, github,
    async close() {
      github?.tokens.stop();
      await pools.stop();
      leases.abortAll();
      await sessions.closeAll();
      await registry.close();
      await store.close();
    },
  };
}
