/**
 * Plugin discovery. A plugin is a package whose default export is a value made by
 * defineAdapter/defineProvider (or an array of them). Candidates, in order: packages the app
 * depends on, packages named in config (`plugins`, VMHUB_PLUGINS), and installed packages named
 * `@vmhub/adapter-*`, `@vmhub/provider-*`, `vmhub-adapter-*`, `vmhub-provider-*`.
 * A broken or incompatible plugin is recorded with its reason, never thrown: the server keeps
 * serving and reports it in vm_health and in template availability.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CONTRACT_VERSION, type VmhubPlugin } from './define.ts';

export type PluginKind = 'adapter' | 'provider';

export interface DiscoveredPackage {
  package: string;
  version: string;
  /** Plugins the package exported (usually one). */
  plugins: VmhubPlugin[];
  /** Why the package could not be used. */
  error?: string;
}

export interface DiscoverOptions {
  /** `import.meta.url` of the app doing the discovery: resolution starts there. */
  from: string;
  /** Extra package names (config `plugins`). */
  names?: readonly string[];
  /** Only load packages of these kinds (by name pattern; named packages are checked after import). */
  kinds?: readonly PluginKind[];
  /** Also scan node_modules for installed plugins. Default true. */
  scan?: boolean;
}

const PATTERNS: Record<PluginKind, RegExp> = {
  adapter: /^(@vmhub\/adapter-|vmhub-adapter-)/,
  provider: /^(@vmhub\/provider-|vmhub-provider-)/,
};

export function pluginKindOf(name: string): PluginKind | undefined {
  if (PATTERNS.adapter.test(name)) return 'adapter';
  if (PATTERNS.provider.test(name)) return 'provider';
  return undefined;
}

export async function discoverPlugins(options: DiscoverOptions): Promise<DiscoveredPackage[]> {
  const kinds = options.kinds ?? ['adapter', 'provider'];
  const fromFile = options.from.startsWith('file:') ? fileURLToPath(options.from) : options.from;
  const appDir = findPackageDir(dirname(fromFile));
  const wanted = new Set<string>();
  const byPattern = (name: string) => { const k = pluginKindOf(name); return k !== undefined && kinds.includes(k); };

  if (appDir) {
    const pkg = readJson(join(appDir, 'package.json'));
    for (const dep of Object.keys({ ...(pkg?.dependencies ?? {}), ...(pkg?.optionalDependencies ?? {}) })) if (byPattern(dep)) wanted.add(dep);
  }
  for (const name of options.names ?? []) wanted.add(name);
  if (options.scan !== false) for (const name of scanInstalled(appDir ?? dirname(fromFile))) if (byPattern(name)) wanted.add(name);

  const require = createRequire(fromFile);
  // Loaded concurrently: module loading overlaps its file I/O, and start-up time is paid by every client.
  return Promise.all([...wanted].map((name) => loadPackage(name, require, kinds)));
}

async function loadPackage(name: string, require: NodeJS.Require, kinds: readonly PluginKind[]): Promise<DiscoveredPackage> {
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    return { package: name, version: '?', plugins: [], error: `package "${name}" is not installed: npm install ${name} next to @vmhub/server` };
  }
  const pkgDir = findPackageDir(dirname(entry));
  const version = (pkgDir && readJson(join(pkgDir, 'package.json'))?.version) ?? '?';
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(entry).href);
  } catch (err) {
    return { package: name, version, plugins: [], error: `failed to load: ${(err as Error).message}` };
  }
  const exported = mod.default ?? mod.plugin;
  const list = (Array.isArray(exported) ? exported : [exported]).filter((p) => p !== undefined);
  if (list.length === 0) return { package: name, version, plugins: [], error: 'exports no plugin: its default export must be defineAdapter(...) or defineProvider(...)' };
  const plugins: VmhubPlugin[] = [];
  const problems: string[] = [];
  for (const p of list) {
    const problem = checkPlugin(p);
    if (problem) problems.push(problem);
    else if (kinds.includes((p as VmhubPlugin).kind)) plugins.push(p as VmhubPlugin);
  }
  return problems.length ? { package: name, version, plugins, error: problems.join('; ') } : { package: name, version, plugins };
}

function checkPlugin(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null) return 'default export is not a plugin: it must be made by defineAdapter/defineProvider';
  const v = p as Partial<VmhubPlugin>;
  if (v.kind !== 'adapter' && v.kind !== 'provider') return 'default export is not made by defineAdapter/defineProvider (no kind)';
  if (typeof v.id !== 'string' || typeof v.create !== 'function') return `${v.kind} has no id or create()`;
  if (v.contractVersion !== CONTRACT_VERSION) return `${v.kind} "${v.id}" speaks contract version ${String(v.contractVersion)}, this vmhub speaks ${CONTRACT_VERSION}: install a compatible version`;
  return undefined;
}

function scanInstalled(start: string): string[] {
  const names: string[] = [];
  let dir = start;
  for (;;) {
    const nm = join(dir, 'node_modules');
    if (existsSync(nm)) {
      for (const entry of safeReaddir(nm)) {
        if (entry === '@vmhub') for (const sub of safeReaddir(join(nm, entry))) names.push(`@vmhub/${sub}`);
        else if (entry.startsWith('vmhub-')) names.push(entry);
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return [...new Set(names)];
}

function findPackageDir(start: string): string | undefined {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function safeReaddir(dir: string): string[] {
  try { return readdirSync(dir); } catch { return []; }
}

function readJson(file: string): any {
  try { return JSON.parse(readFileSync(file, 'utf8')); } catch { return undefined; }
}
