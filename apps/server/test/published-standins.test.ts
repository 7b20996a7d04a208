// Test doubles are never dependencies of published code. The stand-ins (the Windows-MCP and ARD
// peers, the stand-in goldens) are private workspace packages under standins/: no published
// package.json names one, and installing @vmhub/reaper or a provider from the packed tarballs (as
// npm would from the registry) brings no stand-in and no MCP SDK. The published provider-docker
// then offers only its real goldens, and says where the stand-in ones are.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { packedClosure, type Packed } from './packed.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const MCP_SDK = '@modelcontextprotocol/sdk';
const STANDIN = /standin/i;
const RUNTIME_FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies'] as const;

interface Manifest { name: string; private?: boolean; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string> }

/** Every workspace package's package.json, as pnpm-workspace.yaml lists them (packages/*, apps/*, standins/*, bench). */
function workspaceManifests(): Manifest[] {
  const globs = [...readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').matchAll(/^\s+-\s+['"]?([^'"\s]+)['"]?\s*$/gm)].map((m) => m[1]!);
  const dirs = globs.flatMap((g) => (g.endsWith('/*') ? readdirSync(join(root, g.slice(0, -2))).map((d) => join(root, g.slice(0, -2), d)) : [join(root, g)]));
  return dirs.filter((d) => existsSync(join(d, 'package.json'))).map((d) => JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as Manifest);
}

const manifests = workspaceManifests();
const privateNames = new Set(manifests.filter((m) => m.private === true).map((m) => m.name));

describe('published packages name no stand-in and no private package', () => {
  it('the stand-ins are private workspace packages', () => {
    for (const name of ['@vmhub/windows-mcp-standin', '@vmhub/ard-standin', '@vmhub/standin-goldens']) assert.ok(privateNames.has(name), `${name} is a private workspace package (private: true)`);
    for (const m of manifests.filter((x) => STANDIN.test(x.name))) assert.equal(m.private, true, `${m.name} is a stand-in: it must be private`);
  });

  it('no published package.json depends (dependencies, optional, peer) on a private package or a stand-in', () => {
    const found: string[] = [];
    for (const m of manifests.filter((x) => x.private !== true)) {
      for (const field of RUNTIME_FIELDS) {
        for (const dep of Object.keys(m[field] ?? {})) if (privateNames.has(dep) || STANDIN.test(dep)) found.push(`${m.name} ${field}.${dep}`);
      }
    }
    assert.deepEqual(found, [], 'published code depends on test doubles (they belong in devDependencies)');
  });
});

describe('installed from the tarballs: @vmhub/reaper and each provider bring no stand-in and no MCP SDK', () => {
  const work = mkdtempSync(join(tmpdir(), 'vmhub-published-standins-'));
  const packs = join(work, 'packs');
  let packed: Packed[] = [];
  after(() => rmSync(work, { recursive: true, force: true }));

  before(async () => {
    await run(process.execPath, [join(root, 'scripts', 'pack.mjs'), '--out', packs], { cwd: root, maxBuffer: 64 * 1024 * 1024 }).catch((err: { code?: number }) => {
      if (err.code !== 1) throw err; // 1: a budget or shape problem, installed.test.ts's business; the tarballs are written
    });
    packed = JSON.parse(readFileSync(join(packs, 'packed.json'), 'utf8'));
  }, { timeout: 10 * 60_000 });

  /** Every package under node_modules (nested ones too), by name. */
  const installed = (dir: string): string[] => {
    const names: string[] = [];
    const walk = (nm: string) => {
      if (!existsSync(nm)) return;
      for (const e of readdirSync(nm)) {
        if (e.startsWith('.')) continue;
        const pkgs = e.startsWith('@') ? readdirSync(join(nm, e)).map((s) => join(e, s)) : [e];
        for (const p of pkgs) {
          if (existsSync(join(nm, p, 'package.json'))) names.push((JSON.parse(readFileSync(join(nm, p, 'package.json'), 'utf8')) as Manifest).name);
          walk(join(nm, p, 'node_modules'));
        }
      }
    };
    walk(join(dir, 'node_modules'));
    return names;
  };

  /** npm install --offline of these tarballs into a new folder (npm's cache: scripts/warm-npm-cache.sh); scripts are not run. */
  const install = async (label: string, tarballs: string[]): Promise<string> => {
    const dir = join(work, label.replace(/[@/]/g, '_'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "name": "vmhub-published-standins-check", "private": true }\n');
    const npm = realpathSync((process.env.PATH ?? '').split(':').map((d) => join(d, 'npm')).find((f) => existsSync(f)) ?? assert.fail('npm is not on PATH'));
    // npm's own environment: none of the npm_* settings a pnpm script run passes down.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|userconfig)$/i.test(k)));
    await run(process.execPath, [npm, 'install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 })
      .catch((err: { stderr?: string }) => assert.fail(`npm install --offline of ${label} failed (is the npm cache warm? bash scripts/warm-npm-cache.sh):\n${err.stderr}`));
    return dir;
  };

  for (const name of ['@vmhub/reaper', '@vmhub/provider-docker', '@vmhub/provider-qemu', '@vmhub/provider-proxmox', '@vmhub/provider-adb-pool']) {
    it(`${name}: nothing named *standin*, no private package, no ${MCP_SDK} (v1 or v2)`, { timeout: 5 * 60_000 }, async () => {
      const tarballs = packedClosure(packed, name).map((p) => p.tarball);
      assert.ok(tarballs.length > 0, `${name} was packed`);
      const names = installed(await install(name, tarballs));
      assert.ok(names.includes(name), `${name} installed (${names.length} packages)`);
      const bad = names.filter((n) => STANDIN.test(n) || privateNames.has(n) || n === MCP_SDK || n.startsWith('@modelcontextprotocol/'));
      assert.deepEqual([...new Set(bad)], [], `${name} brings test doubles or the MCP SDK to its users`);
    });
  }

  it('the installed provider-docker ships and offers only its real goldens, and says where the stand-in ones are', { timeout: 5 * 60_000 }, async () => {
    const dir = join(work, '_vmhub_provider-docker');
    const pkg = join(dir, 'node_modules', '@vmhub', 'provider-docker');
    assert.ok(existsSync(pkg), 'installed by the test above');
    const folders = readdirSync(join(pkg, 'golden'));
    assert.deepEqual(folders.filter((f) => STANDIN.test(f)), [], 'no stand-in golden in the tarball');
    for (const real of ['debian-x11', 'debian-desktop', 'wayland-sway', 'lib']) assert.ok(folders.includes(real), `golden/${real} is published`);
    const docker = await import(pathToFileURL(join(pkg, 'dist', 'index.js')).href);
    assert.deepEqual(docker.goldenNames(), ['debian-desktop', 'debian-x11', 'wayland-sway']);
    assert.deepEqual(docker.DOCKER_TEMPLATES.filter((t: { standin?: boolean }) => t.standin), [], 'no stand-in template');
    assert.throws(() => docker.goldenImageTag('windows-standin'), (err: Error) =>
      /no golden image manifest named "windows-standin"/.test(err.message) && /@vmhub\/standin-goldens, a private workspace package that only a vmhub checkout has/.test(err.message));
  });
});
