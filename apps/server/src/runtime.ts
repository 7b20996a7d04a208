/**
 * The server's runtime: store, plugins, lease manager, catalog. It starts in the background while
 * the MCP handshake is answered (an MCP client pays for the server's cold start before it can do
 * anything, and `initialize` and `tools/list` need none of this); tool calls wait for it.
 */
import type { VmhubConfig } from '@vmhub/core';
import type { Store } from '@vmhub/store';
import { Bindings } from './bindings.ts';
import { Catalog } from './catalog.ts';
import { LeaseManager } from './leases/manager.ts';
import { Registry } from './registry.ts';

export interface Runtime {
  store: Store;
  registry: Registry;
  bindings: Bindings;
  leases: LeaseManager;
  catalog: Catalog;
  close(): Promise<void>;
}

export async function startRuntime(config: VmhubConfig, from: string, onRelease: (leaseId: string) => void): Promise<Runtime> {
  // Loaded here, not at module load: better-sqlite3 and kysely are not needed to answer `initialize`.
  const { defaultStatePath, openStore } = await import('@vmhub/store');
  const [store, registry] = await Promise.all([
    Promise.resolve().then(() => openStore({ path: config.db ?? defaultStatePath() })),
    Registry.load(config, from),
  ]);
  const bindings = new Bindings(store, registry);
  const leases = new LeaseManager(store, registry, config, async (leaseId) => { onRelease(leaseId); await bindings.release(leaseId); });
  bindings.attach(leases);
  const catalog = new Catalog(registry, store, leases, bindings);
  return {
    store, registry, bindings, leases, catalog,
    async close() {
      leases.abortAll();
      await bindings.closeAll();
      await registry.close();
      await store.close();
    },
  };
}
