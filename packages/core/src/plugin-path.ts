/**
 * Plugins named by path in config `plugins` / VMHUB_PLUGINS: a package directory or a built entry
 * file (.js, .mjs, .cjs). A directory's entry is read from its package.json as Node's `import`
 * would pick it (exports "." under the import/node/default conditions, else main, else
 * index.js), so a developer can point vmhub at a checkout without installing it anywhere. Every
 * way this can fail has its own problem code and a message naming the path, what was found
 * there, and the fix.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Why a plugin named in config or found installed could not be used. */
export type PluginProblem =
  /** A package name that does not resolve from the server. */
  | 'NOT_INSTALLED'
  /** A path that does not exist. */
  | 'PATH_NOT_FOUND'
  /** A directory without package.json. */
  | 'NO_PACKAGE_JSON'
  /** A package.json that is not a JSON object. */
  | 'BAD_PACKAGE_JSON'
  /** A package.json naming no entry (no exports ".", no main, no index.js). */
  | 'NO_ENTRY'
  /** The entry package.json names does not exist (usually: not built yet). */
  | 'ENTRY_NOT_FOUND'
  /** A file that is not JavaScript (e.g. the .ts source instead of the built file). */
  | 'NOT_JAVASCRIPT'
  /** Importing the entry threw (a syntax error, a missing dependency, code that throws). */
  | 'LOAD_FAILED'
  /** The entry loaded but exports no value made by defineAdapter/defineProvider. */
  | 'NOT_A_PLUGIN'
  /** A plugin written for another contract version. */
  | 'INCOMPATIBLE'
  /**
   * Its entry file or a folder holding it is writable by others than its owner, or owned by a
   * user other than the one running vmhub or root (file-trust.ts): refused, never imported.
   */
  | 'UNSAFE_PERMISSIONS';

/** A plugin file to import, with the package it belongs to. */
export interface LocatedPlugin {
  package: string;
  version: string;
  entry: string;
  /** The package directory when it was named by path (its dependencies resolve from there). */
  dir?: string;
}

export interface PluginFailure {
  package: string;
  version: string;
  problem: PluginProblem;
  error: string;
}

const JS_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);
/** The conditions Node's ESM loader matches for `import` (object key order decides among them). */
const IMPORT_CONDITIONS = new Set(['import', 'node', 'module-sync', 'default']);

/** True for a spec that names a path (absolute, ./ or ../, ~/, file: URL) rather than a package. */
export function isPluginPath(spec: string): boolean {
  return isAbsolute(spec) || /^\.\.?([\\/]|$)/.test(spec) || spec.startsWith('~/') || spec.startsWith('file:');
}

/** The absolute path a path spec names; relative ones are taken from `baseDir`. */
export function resolvePluginPath(spec: string, baseDir: string): string {
  if (spec.startsWith('file:')) return fileURLToPath(spec);
  if (spec.startsWith('~/')) return join(homedir(), spec.slice(2));
  return resolve(baseDir, spec);
}

/**
 * Path specs made absolute against `baseDir`, package names left as they are. The config loader
 * applies it to the file's `plugins` with the file's folder, so a relative path there means the
 * same whatever directory the server (or the reaper it starts) runs in.
 */
export function resolvePluginPaths(specs: readonly string[], baseDir: string): string[] {
  return specs.map((s) => (isPluginPath(s) ? resolvePluginPath(s, baseDir) : s));
}

/** Find the file to import for a directory or entry file. */
export function locatePluginPath(path: string, spec: string): LocatedPlugin | PluginFailure {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    const from = path === spec ? '' : ` ("${spec}" resolved to it)`;
    return fail(path, 'PATH_NOT_FOUND', `plugin path ${path}${from} does not exist: name the plugin package's directory or its built entry file (e.g. dist/index.js) in VMHUB_PLUGINS or config "plugins"`);
  }
  return isDir ? locateDirectory(path) : locateFile(path);
}

function locateDirectory(dir: string): LocatedPlugin | PluginFailure {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) {
    return fail(dir, 'NO_PACKAGE_JSON', `plugin directory ${dir} has no package.json (${describeDirectory(dir)}): name the plugin package's own directory, the one holding its package.json, or its built entry file`);
  }
  let pkg: unknown;
  try {
    pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  } catch (err) {
    return fail(dir, 'BAD_PACKAGE_JSON', `${manifest} is not valid JSON (${(err as Error).message}): fix the file`);
  }
  if (typeof pkg !== 'object' || pkg === null || Array.isArray(pkg)) return fail(dir, 'BAD_PACKAGE_JSON', `${manifest} does not hold a JSON object: fix the file`);
  const fields = pkg as Record<string, unknown>;
  const name = typeof fields.name === 'string' && fields.name ? fields.name : dir;
  const version = typeof fields.version === 'string' ? fields.version : '?';
  const declared = declaredEntry(fields, dir);
  if ('error' in declared) return { package: name, version, problem: 'NO_ENTRY', error: `${manifest} ${declared.error}` };
  const entry = resolve(dir, declared.path);
  if (!isFile(entry)) {
    return { package: name, version, problem: 'ENTRY_NOT_FOUND', error: `plugin ${name} (${dir}): its entry ${declared.path} (package.json "${declared.field}") does not exist: build the package first (e.g. npm run build in ${dir})` };
  }
  return { package: name, version, entry, dir };
}

function locateFile(file: string): LocatedPlugin | PluginFailure {
  if (!JS_EXTENSIONS.has(extname(file))) {
    return fail(file, 'NOT_JAVASCRIPT', `plugin entry ${file} is not a JavaScript file (.js, .mjs, .cjs): name the built file (e.g. dist/index.js, not src/index.ts) or the package directory`);
  }
  // The file is that package when it is the package's own entry; a loose file is its own name.
  const pkgDir = findPackageDir(dirname(file));
  const pkg = pkgDir ? readJson(join(pkgDir, 'package.json')) : undefined;
  const declared = pkg && typeof pkg.name === 'string' ? declaredEntry(pkg, pkgDir!) : undefined;
  if (declared && 'path' in declared && resolve(pkgDir!, declared.path) === file) {
    return { package: pkg.name, version: typeof pkg.version === 'string' ? pkg.version : '?', entry: file, dir: pkgDir! };
  }
  return { package: file, version: '?', entry: file, ...(pkgDir ? { dir: pkgDir } : {}) };
}

/** The entry a package.json names for `import`, or what is missing. */
function declaredEntry(pkg: Record<string, any>, dir: string): { path: string; field: string } | { error: string } {
  if (pkg.exports !== undefined && pkg.exports !== null) {
    const root = rootExport(pkg.exports);
    if (root) return { path: root, field: 'exports' };
    const keys = typeof pkg.exports === 'object' ? Object.keys(pkg.exports).join(', ') : JSON.stringify(pkg.exports);
    return { error: `has "exports" (${keys}) but no "." entry for import: add "exports": { ".": "./dist/index.js" } pointing at the built file` };
  }
  if (typeof pkg.main === 'string' && pkg.main) {
    // Node's legacy main resolution: as written, then with .js, then as a folder's index.js.
    for (const candidate of [pkg.main, `${pkg.main}.js`, join(pkg.main, 'index.js')]) if (isFile(resolve(dir, candidate))) return { path: candidate, field: 'main' };
    return { path: pkg.main, field: 'main' };
  }
  if (isFile(join(dir, 'index.js'))) return { path: 'index.js', field: 'main (default index.js)' };
  const found = Object.keys(pkg).join(', ') || 'none';
  return { error: `names no entry (no "exports", no "main", and no index.js; fields: ${found}): add "exports": { ".": "./dist/index.js" } pointing at the built file` };
}

function rootExport(exp: unknown): string | undefined {
  if (typeof exp === 'object' && exp !== null && !Array.isArray(exp)) {
    const keys = Object.keys(exp);
    if (keys.some((k) => k.startsWith('.'))) return conditional((exp as Record<string, unknown>)['.']);
  }
  return conditional(exp);
}

function conditional(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const t of target) { const r = conditional(t); if (r) return r; }
    return undefined;
  }
  if (typeof target !== 'object' || target === null) return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (!IMPORT_CONDITIONS.has(condition)) continue;
    const r = conditional(value);
    if (r) return r;
  }
  return undefined;
}

/** What a directory holds, and the sub-folder the user probably meant when one is a package. */
function describeDirectory(dir: string): string {
  let names: string[];
  try { names = readdirSync(dir).sort(); } catch { return 'it cannot be read'; }
  if (names.length === 0) return 'it is empty';
  const shown = names.slice(0, 8).join(', ') + (names.length > 8 ? `, … (${names.length} entries)` : '');
  const nested = names.find((n) => existsSync(join(dir, n, 'package.json')));
  return `it holds ${shown}${nested ? `; did you mean ${join(dir, nested)}?` : ''}`;
}

/** The closest folder at or above `start` holding a package.json. */
export function findPackageDir(start: string): string | undefined {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A path as the user would write it from `base` (for hints): `./x` or the absolute path. */
export function shortPath(path: string, base: string): string {
  const rel = relative(base, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? `.${sep}${rel}` : path;
}

export function readJson(file: string): any {
  try { return JSON.parse(readFileSync(file, 'utf8')); } catch { return undefined; }
}

function isFile(path: string): boolean {
  try { return statSync(path).isFile(); } catch { return false; }
}

function fail(path: string, problem: PluginProblem, error: string): PluginFailure {
  return { package: path, version: '?', problem, error };
}
