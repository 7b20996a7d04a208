/**
 * Plugin discovery. A plugin is a package whose default export is a value made by
 * defineAdapter/defineProvider (or an array of them). Candidates, in order: packages the app
 * depends on, plugins named in config (`plugins`, VMHUB_PLUGINS: package names, package
 * directories or entry files, see plugin-path.ts), and installed packages named
 * `@vmhub/adapter-*`, `@vmhub/provider-*`, `vmhub-adapter-*`, `vmhub-provider-*` (the last two
 * in any scope too: `@team/vmhub-adapter-*`).
 * A broken or incompatible plugin is recorded with its reason and problem code, never thrown:
 * the server keeps serving and reports it in vm_health and in template availability.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CONTRACT_VERSION, type VmhubPlugin } from './define.ts';
import { findPackageDir, isPluginPath, locatePluginPath, readJson, resolvePluginPath, shortPath, type LocatedPlugin, type PluginFailure, type PluginProblem } from './plugin-path.ts';

export { isPluginPath, resolvePluginPath, resolvePluginPaths, type PluginProblem } from './plugin-path.ts';

export type PluginKind = 'adapter' | 'provider';

export interface DiscoveredPackage {
  /** The package name (from its package.json when named by path; a loose file is its own path). */
  package: string;
  version: string;
  /** Plugins the package exported (usually one). */
  plugins: VmhubPlugin[];
  /** The file imported (absent when none could be found). */
  entry?: string;
  /** Why the package could not be used: the message names the path, what was found and the fix. */
  error?: string;
  /** The kind of failure, for code that reacts to it (set whenever `error` is). */
  problem?: PluginProblem;
}

export interface DiscoverOptions {
  /** `import.meta.url` of the app doing the discovery: package names resolve from there. */
  from: string;
  /** Extra plugins (config `plugins`): package names, package directories or entry files. */
  names?: readonly string[];
  /** Only load packages of these kinds (by name pattern; named packages are checked after import). */
  kinds?: readonly PluginKind[];
  /** Also scan node_modules for installed plugins. Default true. */
  scan?: boolean;
  /** Where relative paths in `names` start. Default: the process's working directory. */
  cwd?: string;
}

// `vmhub-adapter-*` may sit in any scope, so a team can publish under its npm organisation.
const PATTERNS: Record<PluginKind, RegExp> = {
  adapter: /^(@vmhub\/adapter-|(@[^/]+\/)?vmhub-adapter-)/,
  provider: /^(@vmhub\/provider-|(@[^/]+\/)?vmhub-provider-)/,
};

export function pluginKindOf(name: string): PluginKind | undefined {
  if (PATTERNS.adapter.test(name)) return 'adapter';
  if (PATTERNS.provider.test(name)) return 'provider';
  return undefined;
}

export async function discoverPlugins(options: DiscoverOptions): Promise<DiscoveredPackage[]> {
  const kinds = options.kinds ?? ['adapter', 'provider'];
  const cwd = options.cwd ?? process.cwd();
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
  // One plugin reached twice (installed and also named by its directory) is loaded once: a
  // second copy would only be reported as a duplicate id.
  const seen = new Set<string>();
  const located: (LocatedPlugin | PluginFailure)[] = [];
  for (const spec of wanted) {
    const found = locate(spec, require, cwd);
    if ('entry' in found) {
      const key = realpathOr(found.entry);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    located.push(found);
  }
  // Loaded concurrently: module loading overlaps its file I/O, and start-up time is paid by every client.
  return Promise.all(located.map((l) => ('entry' in l ? loadPackage(l, kinds) : { package: l.package, version: l.version, plugins: [], error: l.error, problem: l.problem })));
}

function locate(spec: string, require: NodeJS.Require, cwd: string): LocatedPlugin | PluginFailure {
  if (isPluginPath(spec)) return locatePluginPath(resolvePluginPath(spec, cwd), spec);
  let entry: string;
  try {
    entry = require.resolve(spec);
  } catch {
    // `VMHUB_PLUGINS=my-adapter` meant as the folder here is read as a package name.
    const local = resolve(cwd, spec);
    const pkgName = spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
    const asPath = existsSync(local) ? `; there is ${shortPath(local, cwd)} in ${cwd}: to load it by path, write ${shortPath(local, cwd)} or ${local}` : '';
    return { package: spec, version: '?', problem: 'NOT_INSTALLED', error: `package "${spec}" is not installed where @vmhub/server can import it: install it beside the server (npx -y -p @vmhub/server -p ${pkgName} vmhub-server; npm i -g @vmhub/server ${pkgName}), or name its directory or entry file in VMHUB_PLUGINS${asPath}` };
  }
  const pkgDir = findPackageDir(dirname(entry));
  return { package: spec, version: (pkgDir && readJson(join(pkgDir, 'package.json'))?.version) ?? '?', entry };
}

async function loadPackage(found: LocatedPlugin, kinds: readonly PluginKind[]): Promise<DiscoveredPackage> {
  const { package: name, version, entry } = found;
  const base = { package: name, version, entry };
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(entry).href);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // A plugin named by path resolves its own imports (its @vmhub/core peer too) from its folder.
    const deps = found.dir && e.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find package/.test(e.message) ? `: install its dependencies (npm install in ${found.dir})` : '';
    return { ...base, plugins: [], problem: 'LOAD_FAILED', error: `failed to load ${entry}: ${e.message}${deps}` };
  }
  let exported = mod.default ?? mod.plugin;
  // A CommonJS build that set exports.default: import() hands back the exports object.
  if (isObject(exported) && !('kind' in exported) && isObject(exported.default) && 'kind' in exported.default) exported = exported.default;
  const list = (Array.isArray(exported) ? exported : [exported]).filter((p) => p !== undefined);
  if (list.length === 0) return { ...base, plugins: [], problem: 'NOT_A_PLUGIN', error: `${entry} exports no plugin (found ${describeModule(mod)}): its default export must be defineAdapter(...) or defineProvider(...), or an array of them` };
  const plugins: VmhubPlugin[] = [];
  const problems: { problem: PluginProblem; message: string }[] = [];
  for (const p of list) {
    const problem = checkPlugin(p);
    if (problem) problems.push(problem);
    else if (kinds.includes((p as VmhubPlugin).kind)) plugins.push(p as VmhubPlugin);
  }
  if (problems.length === 0) return { ...base, plugins };
  return { ...base, plugins, problem: problems[0]!.problem, error: `${entry}: ${problems.map((p) => p.message).join('; ')}` };
}

function checkPlugin(p: unknown): { problem: PluginProblem; message: string } | undefined {
  const notAPlugin = (message: string) => ({ problem: 'NOT_A_PLUGIN' as const, message });
  if (!isObject(p)) return notAPlugin(`default export is ${describeValue(p)}, not a plugin: it must be made by defineAdapter/defineProvider`);
  const v = p as Partial<VmhubPlugin>;
  if (v.kind !== 'adapter' && v.kind !== 'provider') return notAPlugin(`default export is not made by defineAdapter/defineProvider (no kind; found ${describeValue(p)})`);
  if (typeof v.id !== 'string' || typeof v.create !== 'function') return notAPlugin(`${v.kind} has no id or create(): make it with define${v.kind === 'adapter' ? 'Adapter' : 'Provider'}`);
  if (v.contractVersion !== CONTRACT_VERSION) return { problem: 'INCOMPATIBLE', message: `${v.kind} "${v.id}" speaks contract version ${String(v.contractVersion)}, this vmhub speaks ${CONTRACT_VERSION}: install a compatible version` };
  return undefined;
}

function describeModule(mod: Record<string, unknown>): string {
  const names = Object.keys(mod);
  if (names.length === 0) return 'no exports at all';
  const named = names.filter((n) => n !== 'default');
  const parts = [mod.default === undefined ? 'no default export' : `a default export that is ${describeValue(mod.default)}`];
  if (named.length > 0) parts.push(`named exports ${named.slice(0, 8).join(', ')}${named.length > 8 ? ', …' : ''}`);
  return parts.join(' and ');
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'function') return `a function${value.name ? ` (${value.name})` : ''}`;
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    return keys.length === 0 ? 'an empty object' : `an object with keys ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''}`;
  }
  return `${JSON.stringify(value) ?? String(value)} (a ${typeof value})`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function realpathOr(path: string): string {
  try { return realpathSync(path); } catch { return path; }
}

function scanInstalled(start: string): string[] {
  const names: string[] = [];
  let dir = start;
  for (;;) {
    const nm = join(dir, 'node_modules');
    if (existsSync(nm)) {
      for (const entry of safeReaddir(nm)) {
        if (entry === '@vmhub') for (const sub of safeReaddir(join(nm, entry))) names.push(`@vmhub/${sub}`);
        else if (entry.startsWith('@')) for (const sub of safeReaddir(join(nm, entry))) { if (sub.startsWith('vmhub-')) names.push(`${entry}/${sub}`); }
        else if (entry.startsWith('vmhub-')) names.push(entry);
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return [...new Set(names)];
}

function safeReaddir(dir: string): string[] {
  try { return readdirSync(dir); } catch { return []; }
}
