/**
 * Plugin discovery. A plugin is a package whose default export is a value made by
 * defineAdapter/defineProvider (or an array of them). Candidates, in order: packages the app
 * depends on, plugins named in config (`plugins`, VMHUB_PLUGINS: package names, package
 * directories or entry files, see plugin-path.ts), and installed packages named
 * `@vmhub/adapter-*`, `@vmhub/provider-*`, `vmhub-adapter-*`, `vmhub-provider-*` (the last two
 * in any scope too: `@team/vmhub-adapter-*`).
 * Packages are found by name only in the install's own node_modules folders (install-roots.ts),
 * never in a parent folder's node_modules where another user may have put one. Before anything is
 * imported, its entry file and the folders holding it (up to the node_modules folder, or the
 * package directory of a plugin named by path) must be owned by this user or root and writable
 * by nobody else (file-trust.ts); a plugin that is not is refused (UNSAFE_PERMISSIONS), never imported.
 * A plugin of the previous contract is lifted to the current one by its shim (contract-window.ts).
 * A broken or incompatible plugin is recorded with its reason and problem code, never thrown:
 * the server keeps serving and reports it in vm_health and in template availability.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { contractProblem, currentPlugin } from './contract-window.ts';
import type { VmhubPlugin } from './define.ts';
import { untrustedChain, type Untrusted } from './file-trust.ts';
import { installRoots } from './install-roots.ts';
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
  /** Also scan the install's node_modules (install-roots.ts) for installed plugins. Default true. */
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
  const roots = installRoots(appDir ?? dirname(fromFile));
  const wanted = new Set<string>();
  const byPattern = (name: string) => { const k = pluginKindOf(name); return k !== undefined && kinds.includes(k); };

  const self = appDir ? { dir: realpathOr(appDir), name: readJson(join(appDir, 'package.json'))?.name as unknown } : undefined;
  if (appDir) {
    const pkg = readJson(join(appDir, 'package.json'));
    for (const dep of Object.keys({ ...(pkg?.dependencies ?? {}), ...(pkg?.optionalDependencies ?? {}) })) if (byPattern(dep)) wanted.add(dep);
  }
  for (const name of options.names ?? []) wanted.add(name);
  if (options.scan !== false) for (const name of scanInstalled(roots)) if (byPattern(name)) wanted.add(name);

  const require = createRequire(fromFile);
  // One plugin reached twice (installed and also named by its directory) is loaded once: a
  // second copy would only be reported as a duplicate id.
  const seen = new Set<string>();
  const located: (LocatedPlugin | PluginFailure)[] = [];
  for (const spec of wanted) {
    const found = locate(spec, roots, require, cwd, self);
    if ('entry' in found) {
      const key = realpathOr(found.entry);
      if (seen.has(key)) continue;
      seen.add(key);
      // Checked before the import: a refused plugin's code never runs.
      const bad = found.trust.map(([file, top]) => untrustedChain(file, top)).find((u) => u !== undefined);
      if (bad) { located.push(refused(found, bad)); continue; }
    }
    located.push(found);
  }
  // Loaded concurrently: module loading overlaps its file I/O, and start-up time is paid by every client.
  return Promise.all(located.map((l) => ('entry' in l ? loadPackage(l, kinds) : { package: l.package, version: l.version, plugins: [], error: l.error, problem: l.problem })));
}

/** A plugin to import, with the [file, top] chains (file-trust.ts) that must be trusted first. */
type Located = LocatedPlugin & { trust: [string, string][] };

function locate(spec: string, roots: readonly string[], require: NodeJS.Require, cwd: string, self?: { dir: string; name: unknown }): Located | PluginFailure {
  if (isPluginPath(spec)) {
    const path = resolvePluginPath(spec, cwd);
    const found = locatePluginPath(path, spec);
    if (!('entry' in found)) return found;
    // The entry and the folders up to the package directory — or up to the node_modules folder
    // holding it — as they really are, and the path as named (a symlink must be ours too).
    const pkgDir = realpathOr(found.dir ?? dirname(found.entry));
    return { ...found, trust: [[realpathOr(found.entry), nodeModulesAbove(pkgDir) ?? pkgDir], [path, path]] };
  }
  const pkgName = spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
  // The app's own package by its name (Node's self-reference through its "exports"): its own files only.
  if (self && pkgName === self.name) {
    let own: string | undefined;
    try { own = realpathOr(require.resolve(spec)); } catch { /* not exported */ }
    if (own && isInside(own, self.dir)) return { package: spec, version: readJson(join(self.dir, 'package.json'))?.version ?? '?', entry: own, trust: [[own, self.dir]] };
  }
  // Only the install's own node_modules: `paths` starts Node's lookup there, where the package
  // is; a file it does not have (an unexported subpath of a package without "exports") would
  // send the lookup on up, so the entry must lie in that package.
  const root = roots.find((r) => existsSync(join(r, pkgName, 'package.json')));
  let entry: string | undefined;
  try { if (root) entry = require.resolve(spec, { paths: [root] }); } catch { /* reported below */ }
  if (root && entry && !isInside(realpathOr(entry), realpathOr(join(root, pkgName)))) entry = undefined;
  if (!root || !entry) return notInstalled(spec, pkgName, roots, require, cwd);
  const pkgDir = findPackageDir(dirname(entry));
  // The package as installed (its folder, a scope folder, the node_modules folder) and its real files.
  const trust: [string, string][] = [[join(root, pkgName), root], [entry, realpathOr(join(root, pkgName))]];
  return { package: spec, version: (pkgDir && readJson(join(pkgDir, 'package.json'))?.version) ?? '?', entry, trust };
}

function notInstalled(spec: string, pkgName: string, roots: readonly string[], require: NodeJS.Require, cwd: string): PluginFailure {
  // `VMHUB_PLUGINS=my-adapter` meant as the folder here is read as a package name.
  const local = resolve(cwd, spec);
  const asPath = existsSync(local) ? `; there is ${shortPath(local, cwd)} in ${cwd}: to load it by path, write ${shortPath(local, cwd)} or ${local}` : '';
  // A copy that Node's own lookup would reach in a parent folder is named, never imported.
  let elsewhere = '';
  try {
    const other = findPackageDir(dirname(require.resolve(spec)));
    if (other) elsewhere = `; the copy in ${other} is not used: packages are loaded only from this install's own node_modules (${roots.join(', ') || 'none'}), not from parent folders`;
  } catch { /* nowhere at all */ }
  return { package: spec, version: '?', problem: 'NOT_INSTALLED', error: `package "${spec}" is not installed where @vmhub/server can import it: install it beside the server (npx -y -p @vmhub/server -p ${pkgName} vmhub-server; npm i -g @vmhub/server ${pkgName}), or name its directory or entry file in VMHUB_PLUGINS${asPath}${elsewhere}` };
}

function refused(found: LocatedPlugin, bad: Untrusted): PluginFailure {
  return {
    package: found.package, version: found.version, problem: 'UNSAFE_PERMISSIONS',
    error: `plugin ${found.package} (${found.entry}) was not loaded: ${bad.path} ${bad.why}, so whoever can write it could run code as vmhub: ${bad.fix} (or install the plugin where only you and root can write)`,
  };
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The nearest folder named node_modules at or above `dir`. */
function nodeModulesAbove(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (basename(d) === 'node_modules') return d;
    if (dirname(d) === d) return undefined;
  }
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
    else if (kinds.includes((p as VmhubPlugin).kind)) plugins.push(currentPlugin(p as VmhubPlugin));
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
  // The current contract or the one before it (contract-window.ts); the caller lifts an old one.
  const incompatible = contractProblem(v.kind, v.id, v.contractVersion);
  if (incompatible) return { problem: 'INCOMPATIBLE', message: incompatible };
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

/** Package names in the install's node_modules folders that may be plugins (filtered by pattern later). */
function scanInstalled(roots: readonly string[]): string[] {
  const names: string[] = [];
  for (const nm of roots) {
    for (const entry of safeReaddir(nm)) {
      if (entry === '@vmhub') for (const sub of safeReaddir(join(nm, entry))) names.push(`@vmhub/${sub}`);
      else if (entry.startsWith('@')) for (const sub of safeReaddir(join(nm, entry))) { if (sub.startsWith('vmhub-')) names.push(`${entry}/${sub}`); }
      else if (entry.startsWith('vmhub-')) names.push(entry);
    }
  }
  return [...new Set(names)];
}

function safeReaddir(dir: string): string[] {
  try { return readdirSync(dir); } catch { return []; }
}
