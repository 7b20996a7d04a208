#!/usr/bin/env node
// Packs every published package with `pnpm pack` (pnpm rewrites `workspace:` ranges; npm pack
// does not) and checks each tarball as npm would publish it: LICENSE and README.md present,
// `repository` set, engines.node ≥ 22, no `workspace:` range left, no private workspace package
// (@vmhub/test-kit, the stand-ins, …) among its runtime dependencies, unpacked size under its
// budget, and no source maps in the server. Prints a table; exits 1 with the list of problems.
//
//   node scripts/pack.mjs [--out DIR]
//
// DIR (default: a new temp dir) receives the tarballs and packed.json: one entry per package
// with its tarball, manifest, size and problems (apps/server/test/installed.test.ts reads it).
// Exit codes: 0 all checks pass, 1 a check failed (tarballs are still written), 2 packing failed.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const MIN_NODE_MAJOR = 22;
const KB = 1024;

/**
 * Unpacked-size budgets: each tarball's size measured on 2026-12-01 (after issue 20: LICENSE and
 * README in every package, no source maps) plus about 20%. Raising one is a decision: say why in
 * the commit. A published package without a budget fails, so a new one gets its budget the day
 * it is added.
 */
export const BUDGETS = {
  '@vmhub/adapter-android': 96 * KB,
  '@vmhub/adapter-console': 54 * KB,
  '@vmhub/adapter-hyprland': 184 * KB, // 152.6 kB on 2026-12-07: the kept capture helper on the shared framebuffer (issue 35.3)
  '@vmhub/adapter-macos': 124 * KB,
  '@vmhub/adapter-windows-cursortouch': 158 * KB,
  '@vmhub/adapter-x11': 236 * KB, // 196 kB on 2026-12-04: framebuffer reads and XTEST input (issue 19)
  '@vmhub/channel-adb': 67 * KB, // 56.1 kB on 2026-12-06: its private adb server on a unix socket (issue 27)
  '@vmhub/conformance': 266 * KB, // 222.2 kB on 2026-12-06: the package-shape check and its command (issue 29.7)
  '@vmhub/core': 740 * KB, // 616.9 kB on 2026-12-07: + element refs, the bounded AT-SPI walk, key holding, human cadence, window points, vm_get_clipboard (issue 33); 504.5 kB on 2026-12-06 (evening)
  '@vmhub/provider-adb-pool': 53 * KB,
  '@vmhub/provider-docker': 308 * KB, // 256.3 kB on 2026-12-06 (evening): per-lease SSH keys, snapshots, restore and fork (issues 30, 31)
  '@vmhub/provider-proxmox': 264 * KB, // 220.1 kB on 2026-12-06: per-lease SSH access, snapshots, restore and fork, a fork's own keys (issues 30, 31)
  '@vmhub/provider-qemu': 305 * KB, // 254.1 kB on 2026-12-06: the NoCloud seed and sshd golden, snapshots, restore and fork (issues 30, 31)
  '@vmhub/rfb': 80 * KB, // 66.5 kB on 2026-12-06: the ARD stand-in moved to standins/ard (issue 29)
  '@vmhub/store': 220 * KB, // 183.6 kB on 2026-12-06 (evening): sealed lease credentials (migration 7), snapshots (migration 8) (issues 30, 31)
  '@vmhub/x11-client': 26 * KB, // 21.2 kB on 2026-12-04 (issue 19)
  '@vmhub/reaper': 88 * KB, // 72.9 kB on 2026-12-06: revoking lease credentials, deleting expired snapshots (issues 30, 31)
  '@vmhub/server': 4900 * KB, // 4086.5 kB on 2026-12-07: the live stream and its ws dependency bundled, MCP resources, trajectory exports, workspaces (issues 32, 34, 35)
};

/** Packages whose tarball must hold no source map (the server's bundle: maps were 3.8 of 6 MB). */
const NO_SOURCE_MAPS = new Set(['@vmhub/server']);
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

/** Every package.json under packages/*, apps/* and standins/* without "private": true (stand-ins are all private). */
export function publishedPackages() {
  const dirs = [];
  for (const group of ['packages', 'apps', 'standins']) {
    for (const name of readdirSync(join(root, group)).sort()) {
      const file = join(root, group, name, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      if (manifest.private !== true) dirs.push({ dir: join(root, group, name), name: manifest.name });
    }
  }
  return dirs;
}

/** Names of the workspace's private packages (test helpers, stand-ins, simulators, bench): never published. */
export function privatePackages() {
  const names = new Set();
  for (const group of ['packages', 'apps', 'standins']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const file = join(dir, name, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      if (manifest.private === true) names.add(manifest.name);
    }
  }
  return names;
}

/** Runtime dependencies (not devDependencies) of a manifest that name a private package, as "field.dependency". */
export function privateDependencies(manifest, privates) {
  const found = [];
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const dep of Object.keys(manifest[field] ?? {})) if (privates.has(dep)) found.push(`${field}.${dep}`);
  }
  return found;
}

/** Files of a .tgz with their sizes (ustar, with pax `path` records), from memory. */
export function tarEntries(tgz) {
  const buf = gunzipSync(readFileSync(tgz));
  const entries = [];
  let paxPath;
  for (let off = 0; off + 512 <= buf.length;) {
    const header = buf.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start, len) => header.subarray(start, start + len).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const prefix = field(345, 155);
    const body = buf.subarray(off + 512, off + 512 + size);
    if (type === 'x') paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
    else if (type === '0' || type === '7') {
      const path = paxPath ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
      entries.push({ path: path.replace(/^package\//, ''), size, body });
      paxPath = undefined;
    }
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

/** The lowest Node major an engines range admits, or undefined when it has no lower bound. */
export function lowestNodeMajor(range) {
  let lowest;
  for (const alt of String(range).split('||')) {
    const m = /^\s*(>=|\^|~|=)?\s*v?(\d+)/.exec(alt);
    if (!m) return undefined; // `*`, `<24`, `x`: no lower bound
    const major = Number(m[2]);
    lowest = lowest === undefined ? major : Math.min(lowest, major);
  }
  return lowest;
}

/** Every `workspace:` range left in a packed manifest, as "field.dependency: range". */
export function workspaceRanges(manifest) {
  const found = [];
  for (const field of DEPENDENCY_FIELDS) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (String(range).startsWith('workspace:')) found.push(`${field}.${dep}: ${range}`);
    }
  }
  return found;
}

/** Files the manifest points at (exports, bin, main, types) that the tarball lacks. */
export function missingEntries(manifest, files) {
  const targets = [];
  const walk = (v) => { if (typeof v === 'string') targets.push(v); else if (v && typeof v === 'object') Object.values(v).forEach(walk); };
  walk(manifest.exports);
  walk(manifest.bin);
  for (const field of ['main', 'types', 'typings', 'module']) walk(manifest[field]);
  return [...new Set(targets.map((t) => t.replace(/^\.\//, '')))].filter((t) => !t.includes('*') && !files.has(t));
}

/** The problems of one packed tarball, each naming the package and what to change. */
export function checkTarball(name, entries, budgets = BUDGETS, privates = privatePackages()) {
  const problems = [];
  const files = new Set(entries.map((e) => e.path));
  const manifestEntry = entries.find((e) => e.path === 'package.json');
  const manifest = manifestEntry ? JSON.parse(manifestEntry.body.toString('utf8')) : {};
  const size = entries.reduce((n, e) => n + e.size, 0);
  if (!files.has('LICENSE')) problems.push(`${name}: no LICENSE in the tarball (add the MIT LICENSE file to the package directory)`);
  if (!files.has('README.md')) problems.push(`${name}: no README.md in the tarball (write one for the package's users)`);
  const repo = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  if (!repo) problems.push(`${name}: package.json has no repository (set repository.url and repository.directory)`);
  const major = lowestNodeMajor(manifest.engines?.node ?? '');
  if (manifest.engines?.node === undefined) problems.push(`${name}: package.json has no engines.node (set ">=${MIN_NODE_MAJOR}")`);
  else if (major === undefined || major < MIN_NODE_MAJOR) problems.push(`${name}: engines.node is "${manifest.engines.node}", must admit only Node >= ${MIN_NODE_MAJOR} (set ">=${MIN_NODE_MAJOR}")`);
  for (const file of missingEntries(manifest, files)) problems.push(`${name}: package.json points at ${file}, which the tarball lacks (build it first: pnpm --filter ${name} run build)`);
  for (const dep of privateDependencies(manifest, privates)) problems.push(`${name}: ${dep} is a private workspace package, which is never published: make it a devDependency (tests) or drop it`);
  for (const left of workspaceRanges(manifest)) problems.push(`${name}: packed package.json keeps ${left} (publish with pnpm, which rewrites workspace: ranges: scripts/release.sh)`);
  if (NO_SOURCE_MAPS.has(name)) {
    const maps = entries.filter((e) => e.path.endsWith('.map'));
    if (maps.length) problems.push(`${name}: ships ${maps.length} source maps (${kb(maps.reduce((n, e) => n + e.size, 0))}), e.g. ${maps[0].path}: build without them`);
  }
  const budget = budgets[name];
  if (!budget) problems.push(`${name}: no size budget: add one to BUDGETS in scripts/pack.mjs (measured size + ~20%)`);
  else if (size > budget) problems.push(`${name}: unpacked size ${kb(size)} exceeds its budget ${kb(budget)} (the largest files: ${largest(entries)})`);
  return { manifest, size, files: entries.length, problems };
}

function kb(bytes) { return `${(bytes / KB).toFixed(1)} kB`; }

function largest(entries) {
  return [...entries].sort((a, b) => b.size - a.size).slice(0, 3).map((e) => `${e.path} ${kb(e.size)}`).join(', ');
}

/** `pnpm pack` one package into out; answers the tarball's path. */
async function pnpmPack(dir, out) {
  const { stdout } = await run('pnpm', ['pack', '--pack-destination', out, '--json'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout).filename;
}

export async function packAll(out) {
  mkdirSync(out, { recursive: true });
  const results = [];
  for (const { dir, name } of publishedPackages()) {
    const tarball = await pnpmPack(dir, out);
    const { manifest, size, files, problems } = checkTarball(name, tarEntries(tarball));
    results.push({ name, version: manifest.version, dir, tarball, size, files, budget: BUDGETS[name] ?? null, manifest, problems });
  }
  writeFileSync(join(out, 'packed.json'), `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

function table(results) {
  const rows = [['package', 'version', 'files', 'unpacked', 'budget', 'check']];
  for (const r of results) rows.push([r.name, r.version, String(r.files), kb(r.size), r.budget ? kb(r.budget) : '-', r.problems.length ? `${r.problems.length} problem(s)` : 'ok']);
  const width = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => (i >= 2 && i <= 4 ? cell.padStart(width[i]) : cell.padEnd(width[i]))).join('  ').trimEnd()).join('\n');
}

async function main(argv) {
  const at = argv.indexOf('--out');
  if (at !== -1 && !argv[at + 1]) throw new Error('[vmhub] [pack] --out needs a directory');
  const out = at === -1 ? mkdtempSync(join(tmpdir(), 'vmhub-pack-')) : resolve(argv[at + 1]);
  let results;
  try {
    results = await packAll(out);
  } catch (err) {
    console.error(`[vmhub] [pack] pnpm pack failed: ${err.stderr || err.message}\nBuild the packages first (pnpm run build) and run this from a pnpm-installed checkout.`);
    return 2;
  }
  console.log(table(results));
  console.log(`\ntarballs and packed.json in ${out}`);
  const problems = results.flatMap((r) => r.problems);
  if (problems.length) {
    console.error(`\n[vmhub] [pack] ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
