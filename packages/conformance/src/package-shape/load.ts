/**
 * What the package-shape check learns from the plugin itself: it imports the package's entry (or
 * takes the plugin it is given), creates it with no I/O, as the server does, and for an adapter
 * opens one session on a lease whose channel, console and ports refuse — `open()` does no I/O —
 * to see which optional methods it has. Nothing here reaches a machine.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { currentPlugin, inContractWindow, type AdapterPlugin, type LeaseContext, type ProviderPlugin, type VmhubPlugin } from '@vmhub/core';
import type { PackageManifest } from './manifest.ts';

/** A plugin and the optional parts its roles depend on. */
export interface PluginFacts {
  readonly plugin: VmhubPlugin;
  /** Adapter: the session methods besides capabilities it has (`screenSize`, `probe`). Provider: the optional instance methods it has (`channel`, `state`, …), plus `goldens` when it builds any. */
  readonly has: ReadonlySet<string>;
}

const SESSION_EXTRAS = ['screenSize', 'probe'] as const;
const PROVIDER_EXTRAS = ['channel', 'connect', 'console', 'state', 'secret', 'framebuffer'] as const;

/** The file the package's `exports["."]` (or `main`) names, relative to its folder. */
export function entryOf(manifest: PackageManifest): string {
  const pick = (e: unknown): string | undefined => {
    if (typeof e === 'string') return e;
    if (!e || typeof e !== 'object') return undefined;
    const o = e as Record<string, unknown>;
    if ('.' in o) return pick(o['.']);
    for (const key of ['import', 'node', 'default']) if (o[key] !== undefined) return pick(o[key]);
    return undefined;
  };
  return pick(manifest.exports) ?? manifest.main ?? 'index.js';
}

/** The package's default export: one plugin, or an array of them. Throws with the reason. */
export async function importPlugins(dir: string, entry: string): Promise<VmhubPlugin[]> {
  const file = join(dir, entry);
  if (!existsSync(file)) throw new Error(`the package's entry ${entry} does not exist: build the package first (npm run build), or give the check the entry or the plugin`);
  const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  const found = Array.isArray(mod.default) ? mod.default : [mod.default];
  if (found.length === 0 || !found.every((p) => p && typeof p === 'object' && ((p as VmhubPlugin).kind === 'adapter' || (p as VmhubPlugin).kind === 'provider'))) {
    throw new Error(`${entry}'s default export is not a plugin (a defineAdapter/defineProvider value, or an array of them): export default the plugin`);
  }
  return found as VmhubPlugin[];
}

const refuse = (what: string) => () => Promise.reject(new Error(`the package-shape check opens no ${what}`));

/** A lease that reaches nothing: what `open()` may be given without doing I/O. */
function shapeLease(plugin: AdapterPlugin): LeaseContext {
  return {
    lease_id: '00000000-0000-4000-8000-000000000000',
    machine: { identity: 'vmhub-shape-00000000-0000-4000-8000-000000000000', external_id: 'shape' },
    template: { id: 'shape', provider: 'shape', adapter: plugin.id, os: 'linux' } as LeaseContext['template'],
    channel: refuse('channel'),
    console: refuse('console'),
    connect: refuse('port'),
    forward: refuse('port'),
  };
}

/** Create the plugin (and, for an adapter, open and dispose one session) to see what it has. */
export async function factsOf(raw: VmhubPlugin, options: unknown): Promise<PluginFacts> {
  const plugin = inContractWindow(raw.contractVersion) ? currentPlugin(raw) : raw;
  const has = new Set<string>();
  if (plugin.kind === 'adapter') {
    const session = await plugin.create(options as Partial<unknown>).open(shapeLease(plugin));
    for (const name of SESSION_EXTRAS) if (typeof (session as unknown as Record<string, unknown>)[name] === 'function') has.add(name);
    await session.dispose();
  } else {
    const provider = (plugin as ProviderPlugin).create(options as Partial<unknown>, { identityPrefix: 'vmhub-shape-', log: () => undefined });
    for (const name of PROVIDER_EXTRAS) if (typeof (provider as unknown as Record<string, unknown>)[name] === 'function') has.add(name);
    if (plugin.goldens(options as Partial<unknown>) !== undefined) has.add('goldens');
    await provider.close?.();
  }
  return { plugin: raw, has };
}
