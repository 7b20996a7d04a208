/**
 * The contract compatibility window: this core serves plugins built for its own contract
 * (CONTRACT_VERSION) and for the one before it, so a contract bump does not strand every
 * third-party plugin at once. A plugin of the previous contract is made current by a shim
 * (one per version, in SHIMS below); the plugin keeps its own `contractVersion`, so vm_health can
 * say which plugins run through a shim and should be rebuilt. Anything older is refused with the
 * version to build against.
 *
 * The shims, by the contract they lift:
 *   1 → 2  adapters: contract 1 had no sessions — the adapter instance carried the capability
 *          methods `(ctx, input)` itself and `release(lease_id)`. The shim opens a session per
 *          lease whose methods call the instance's, with the same declared = implemented check
 *          and error wrapping as defineAdapter, and `dispose()` calls `release(lease_id)`.
 *          providers: contract 1 had no `goldens()` or `checkTemplate()` on the plugin; the shim
 *          adds them (no goldens; templates unchecked beyond core's own schema).
 * When contract 3 comes, its 2 → 3 shim goes into SHIMS and the 1 → 2 one leaves.
 */
import type { Adapter, AdapterContext, LeaseContext, OpenSession } from './adapter.ts';
import { CAPABILITIES, CAPABILITY_METHOD, type Capability } from './capabilities.ts';
import { CONTRACT_VERSION, type AdapterPlugin, type ProviderPlugin, type VmhubPlugin } from './define.ts';
import { asVmhubError, VmhubError } from './errors.ts';

/** The oldest contract this core still serves (through a shim). */
export const OLDEST_CONTRACT = CONTRACT_VERSION - 1;

/** Whether this core serves a plugin built for `version` (directly or through a shim). */
export function inContractWindow(version: unknown): version is number {
  return typeof version === 'number' && Number.isInteger(version) && version >= OLDEST_CONTRACT && version <= CONTRACT_VERSION;
}

/** Why a plugin's contract is outside the window, with what to do; undefined when it is inside. */
export function contractProblem(kind: string, id: string, version: unknown): string | undefined {
  if (inContractWindow(version)) return undefined;
  const newer = typeof version === 'number' && version > CONTRACT_VERSION;
  return `${kind} "${id}" speaks contract version ${String(version)}, this vmhub speaks ${CONTRACT_VERSION} (and ${OLDEST_CONTRACT} through a shim): ${newer ? 'upgrade vmhub (@vmhub/server) to a version that speaks it' : `install a version of the plugin built for contract ${CONTRACT_VERSION}`}`;
}

/**
 * The plugin as this core speaks it: itself when it is current, else lifted by its contract's
 * shim. Call only for plugins inside the window (contractProblem undefined).
 */
export function currentPlugin(plugin: VmhubPlugin): VmhubPlugin {
  if (plugin.contractVersion === CONTRACT_VERSION) return plugin;
  const shim = SHIMS[plugin.contractVersion];
  if (!shim) throw new VmhubError('INTERNAL', `[vmhub] no shim for contract ${plugin.contractVersion}`);
  return plugin.kind === 'adapter' ? shim.adapter(plugin) : shim.provider(plugin);
}

/** Whether a (current-shaped) plugin runs through a shim. */
export function isShimmed(plugin: { contractVersion: number }): boolean {
  return plugin.contractVersion !== CONTRACT_VERSION;
}

interface Shim {
  adapter(plugin: AdapterPlugin<any>): AdapterPlugin<any>;
  provider(plugin: ProviderPlugin<any>): ProviderPlugin<any>;
}

/** A contract-1 adapter instance: capability methods and dispatch on the instance, release per lease. */
type AdapterV1 = Record<string, unknown> & { release?(leaseId: string): Promise<void> };

const SHIMS: Record<number, Shim> = {
  1: {
    adapter: (plugin) => Object.freeze({
      ...header(plugin),
      create(options?: unknown): Adapter {
        const source = `adapter-${plugin.id}`;
        let instance: AdapterV1;
        try {
          instance = (plugin.create as (o?: unknown) => unknown)(options) as AdapterV1;
        } catch (err) {
          throw asVmhubError(err, source);
        }
        if (!instance || typeof instance !== 'object') throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] (contract 1) create() returned ${instance === null ? 'null' : typeof instance}, not an adapter`, { source });
        const declared = new Set<Capability>(plugin.capabilities);
        for (const cap of CAPABILITIES) {
          const name = cap === 'dispatch' ? 'dispatch' : CAPABILITY_METHOD[cap];
          const has = typeof instance[name] === 'function';
          if (declared.has(cap) && !has) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] (contract 1) declares "${cap}" but does not implement ${name}()`, { source });
          if (!declared.has(cap) && has && cap !== 'dispatch') throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] (contract 1) implements ${name}() but does not declare "${cap}"`, { source });
        }
        return Object.freeze({
          ...header(plugin),
          async open(lease: LeaseContext): Promise<OpenSession> {
            return sessionOverV1(instance, lease, declared, source);
          },
        });
      },
    }) as AdapterPlugin<any>,
    provider: (plugin) => Object.freeze({
      ...plugin,
      goldens: () => undefined,
      checkTemplate: () => undefined,
    }),
  },
};

function header(plugin: AdapterPlugin<any>) {
  return { kind: 'adapter' as const, id: plugin.id, version: plugin.version, contractVersion: plugin.contractVersion, capabilities: plugin.capabilities, verbs: plugin.verbs };
}

/** A contract-2 session whose methods call the contract-1 instance's, for one lease. */
function sessionOverV1(instance: AdapterV1, lease: LeaseContext, declared: ReadonlySet<Capability>, source: string): OpenSession {
  let disposed = false;
  let disposing: Promise<void> | undefined;
  const call = (name: string) => async (ctx: AdapterContext, ...rest: unknown[]) => {
    if (disposed) throw new VmhubError('LEASE_EXPIRED', `[vmhub] [${source}] the session of lease ${lease.lease_id} has ended`, { hint: 'The lease is over: create a new one (vm_lease_create).' });
    try {
      return await (instance[name] as (...a: unknown[]) => Promise<unknown>).call(instance, ctx, ...rest);
    } catch (err) {
      throw asVmhubError(err, source);
    }
  };
  const out: Record<string, unknown> = {
    lease_id: lease.lease_id,
    get disposed() { return disposed; },
    dispose(): Promise<void> {
      disposed = true;
      disposing ??= (async () => {
        try { await instance.release?.(lease.lease_id); } catch { /* dispose must not throw */ }
      })();
      return disposing;
    },
  };
  const names = [...CAPABILITIES.filter((c) => declared.has(c)).map((c) => (c === 'dispatch' ? 'dispatch' : CAPABILITY_METHOD[c])), 'screenSize', 'probe'];
  for (const name of names) if (typeof instance[name] === 'function') out[name] = call(name);
  return Object.freeze(out) as unknown as OpenSession;
}
