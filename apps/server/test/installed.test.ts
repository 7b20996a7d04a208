// What a user gets: every package packed by scripts/pack.mjs (pnpm pack, the release's own
// packing) and installed with npm from the tarballs into an empty directory outside the repo,
// then the installed `vmhub-server` bin, driven by the SDK client, leases a real Docker desktop.
// An adapter built from examples/adapter-template is then packed, installed beside the server and
// must be discovered and served. Nothing here reaches the registry: `npm install --offline` uses
// the cache scripts/warm-npm-cache.sh filled during setup. This suite is also the release's dry
// run: a `workspace:` range left in a packed manifest fails it (see scripts/release.sh).
import assert from 'node:assert/strict';
import { execFile, type ExecFileOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { installClient, inspector, inspectorCall, sdkSession, type ServerCommand } from './clients.ts';
import { connectOver, waitReady, type Session } from './harness.ts';
import { packedClosure, type Packed } from './packed.ts';

const runFile = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'vmhub-installed-'));
const packs = join(work, 'packs');
const app = join(work, 'app');
const instance = `in${randomBytes(3).toString('hex')}`;
const configFile = join(work, 'config.json');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const require = createRequire(import.meta.url);

interface Ran { code: number; stdout: string; stderr: string }

let packedList: Packed[] = [];
let packRun: Ran;
const reapers = new Set<number>();
const sessions: Session[] = [];

async function sh(cmd: string, args: string[], options: ExecFileOptions = {}): Promise<Ran> {
  try {
    const { stdout, stderr } = await runFile(cmd, args, { maxBuffer: 64 * 1024 * 1024, ...options });
    return { code: 0, stdout: String(stdout), stderr: String(stderr) };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: `${e.stderr ?? ''}${e.message}` };
  }
}

/**
 * npm's environment: none of the npm_* settings a pnpm script run passes down (a user runs npm
 * plainly), the cache setup warmed, and better-sqlite3 built from source instead of trying its
 * prebuilt download from GitHub (a test sends no traffic beyond loopback). prebuild-install reads
 * `prebuild-install_buildFromSource`; npm_config_build_from_source would also make sharp try to
 * build libvips from source and fail. Native addons build against this Node's own headers.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|userconfig)$/i.test(k)));
  // Always this Node's own headers: without a nodedir, Debian's node-gyp builds against the
  // system Node's (20, ABI 115), and the installed server, run by this Node (24), cannot load the
  // addon. Under turbo the nodedir scripts/env.sh exports does not reach the test, so it is set here.
  const headers = dirname(dirname(process.execPath));
  assert.ok(existsSync(join(headers, 'include', 'node', 'node.h')), `no Node headers beside ${process.execPath} (${headers}/include/node): native addons cannot be built for this Node`);
  return { ...env, npm_config_nodedir: headers, 'prebuild-install_buildFromSource': 'true', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

/** npm's own CLI, run by this Node (not whichever `node` npm's shebang finds first on PATH). */
function npmCli(): string {
  const onPath = (process.env.PATH ?? '').split(':').map((d) => join(d, 'npm')).find((f) => existsSync(f));
  assert.ok(onPath, 'npm is not on PATH');
  return realpathSync(onPath);
}

async function npmInstall(tarballs: string[], extra: string[] = []): Promise<void> {
  const r = await sh(process.execPath, [npmCli(), 'install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...extra, ...tarballs], { cwd: app, env: npmEnv() });
  assert.equal(r.code, 0, `npm install --offline of ${tarballs.map((t) => t.slice(packs.length + 1)).join(', ')} failed (is the npm cache warm? bash scripts/warm-npm-cache.sh):\n${r.stdout}${r.stderr}`);
}

/**
 * The version a package is published at: its pending changesets' highest bump applied to its
 * version, as `pnpm changeset version` does at release (read from .changeset/ itself: CI's
 * shallow checkout gives `changeset status` no base branch to compare with).
 */
function releaseVersion(name: string, version: string): string {
  const order = ['none', 'patch', 'minor', 'major'];
  let bump = 'none';
  const dir = join(root, '.changeset');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md')) {
    const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? '';
    for (const m of front.matchAll(/^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/gm)) if (m[1] === name && order.indexOf(m[2]!) > order.indexOf(bump)) bump = m[2]!;
  }
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  if (bump === 'patch') return `${major}.${minor}.${patch + 1}`;
  return version;
}

/** node-semver's `satisfies` for plain x.y.z comparators (>=, >, <=, <, =, ^, ~) joined by spaces and ||. */
function satisfies(version: string, range: string): boolean {
  const num = (v: string) => v.split('.').map(Number) as [number, number, number];
  const cmp = (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
  const v = num(version);
  return range.split('||').some((alt) => alt.trim().split(/\s+/).every((c) => {
    const m = /^(>=|<=|>|<|=|\^|~)?v?(\d+\.\d+\.\d+)$/.exec(c);
    if (!m) throw new Error(`range "${range}": comparator "${c}" is not handled here`);
    const b = num(m[2]!);
    const d = cmp(v, b);
    switch (m[1]) {
      case '>=': return d >= 0;
      case '>': return d > 0;
      case '<=': return d <= 0;
      case '<': return d < 0;
      case '^': return d >= 0 && (b[0] > 0 ? v[0] === b[0] : b[1] > 0 ? v[0] === 0 && v[1] === b[1] : cmp(v, b) === 0);
      case '~': return d >= 0 && v[0] === b[0] && v[1] === b[1];
      default: return d === 0;
    }
  }));
}

/** The installed bin, started the way an MCP client application starts `npx @vmhub/server`. */
async function connectInstalled(): Promise<Session & { reaperPids(): number[] }> {
  const transport = new StdioClientTransport({
    command: join(app, 'node_modules', '.bin', 'vmhub-server'),
    cwd: app,
    // This Node first on PATH: the bin's `#!/usr/bin/env node` must find the Node the addons were built for.
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: join(work, 'home'), VMHUB_CONFIG: configFile, VMHUB_LOG_LEVEL: 'info', VMHUB_TOOLSETS: 'all' },
    stderr: 'pipe',
  });
  const base = await connectOver(transport, 'installed-test');
  const session = {
    ...base,
    // The server logs the detached reaper it starts; the test ends it if it outlives the test.
    reaperPids: () => [...base.stderr().matchAll(/"msg":"reaper started for this store","pid":(\d+)/g)].map((m) => Number(m[1])),
  };
  sessions.push(session);
  return session;
}

async function containers(lease: string): Promise<string> {
  return (await sh('docker', ['ps', '-aq', '--filter', `label=vmhub.identity=vmhub-${instance}-${lease}`])).stdout.trim();
}

async function screenshotDecodes(s: Session, lease: string): Promise<void> {
  const shot = await s.call('vm_screenshot', { lease_id: lease });
  assert.equal(shot.isError, undefined, JSON.stringify(shot.structuredContent));
  const image = shot.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
  assert.ok(image, 'the screenshot result carries an image');
  const meta = await sharp(Buffer.from(image.data, 'base64')).metadata();
  assert.deepEqual([meta.width, meta.height], [shot.structuredContent.width, shot.structuredContent.height], 'the image decodes to the reported size');
}

async function releaseAndGone(s: Session, lease: string): Promise<void> {
  const released = await s.call('vm_lease_release', { lease_id: lease });
  assert.equal(released.structuredContent?.status, 'released', JSON.stringify(released.structuredContent));
  assert.equal(await containers(lease), '', `the container of lease ${lease} is gone from the engine`);
}

before(async () => {
  packRun = await sh(process.execPath, [join(root, 'scripts', 'pack.mjs'), '--out', packs], { cwd: root });
  assert.ok(existsSync(join(packs, 'packed.json')), `scripts/pack.mjs packed nothing (exit ${packRun.code}):\n${packRun.stdout}${packRun.stderr}`);
  packedList = JSON.parse(readFileSync(join(packs, 'packed.json'), 'utf8')) as Packed[];
  for (const d of [app, join(work, 'home'), join(work, 'state')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'vmhub-installed-check', private: true }, null, 2)}\n`);
  await npmInstall(packedClosure(packedList, '@vmhub/server').map((p) => p.tarball));
  // The desktop golden's own template, served by the template adapter once it is installed.
  const docker = await import(pathToFileURL(join(app, 'node_modules/@vmhub/provider-docker/dist/index.js')).href);
  const templates = [{ ...docker.debianX11Template, id: 'debian-x11-example', adapter: 'example' }];
  writeFileSync(configFile, JSON.stringify({ instance, db: join(work, 'state', 'vmhub.db'), templates }, null, 2));
}, { timeout: 30 * 60_000 });

after(async () => {
  for (const s of sessions) await s.close().catch(() => undefined);
  await sh('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${instance}-) 2>/dev/null || true`]);
  // A reaper the installed server started exits by itself once no lease is left; one still
  // running now (its loop sleeps between passes) is ended by its pid before its store is removed.
  for (const pid of reapers) {
    const cmdline = (() => { try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { return ''; } })();
    if (cmdline.includes(work)) process.kill(pid, 'SIGTERM'); // still ours (a pid can be reused)
  }
  rmSync(work, { recursive: true, force: true });
});

describe('installed from the tarballs: the packages as published', () => {
  it('scripts/pack.mjs exits 0 exactly when no tarball has a problem, and prints the table', () => {
    const problems = packedList.flatMap((p) => p.problems);
    assert.match(packRun.stdout, /package\s+version\s+files\s+unpacked\s+budget/);
    assert.equal(packRun.code, problems.length ? 1 : 0, packRun.stderr);
  });

  it('every published package was packed', () => {
    const names = packedList.map((p) => p.name).sort();
    for (const must of ['@vmhub/core', '@vmhub/store', '@vmhub/server', '@vmhub/reaper', '@vmhub/provider-docker', '@vmhub/adapter-x11', '@vmhub/conformance']) assert.ok(names.includes(must), `${must} packed (got ${names.join(', ')})`);
    assert.ok(!names.includes('@vmhub/pve-simulator'), 'private packages are not published');
  });

  it('each tarball: LICENSE, README.md, repository, engines.node >= 22, no workspace: range, entries built, size under budget', () => {
    const problems = packedList.flatMap((p) => p.problems);
    assert.deepEqual(problems, [], `tarball problems (scripts/pack.mjs):\n${problems.join('\n')}`);
    for (const p of packedList) {
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
        for (const [dep, range] of Object.entries(p.manifest[field] ?? {})) assert.doesNotMatch(String(range), /^workspace:/, `${p.name} ${field}.${dep}`);
      }
    }
  });

  it('the install is npm\'s own tree outside the repo: real folders, not workspace links', () => {
    for (const name of ['@vmhub/server', '@vmhub/core', '@vmhub/store', '@vmhub/reaper', '@vmhub/provider-docker', '@vmhub/adapter-x11']) {
      const dir = join(app, 'node_modules', name);
      assert.ok(existsSync(join(dir, 'package.json')), `${name} installed`);
      assert.equal(lstatSync(dir).isSymbolicLink(), false, `${name} is a folder, not a link`);
      assert.ok(!realpathSync(dir).startsWith(root), `${name} lives outside the repo`);
    }
    assert.ok(!app.startsWith(root), 'the install directory is outside the repo');
    assert.ok(existsSync(join(app, 'node_modules', '.bin', 'vmhub-server')), 'npm linked the vmhub-server bin');
  });
});

describe('installed from the tarballs: a full lease on the Docker desktop', () => {
  it('create → ready → screenshot → type → exec → release, the container gone', { timeout: 10 * 60_000 }, async () => {
    const s = await connectInstalled();
    const listed = await s.call('vm_list_templates');
    assert.equal(listed.isError, undefined, `vm_list_templates from the installed server: ${JSON.stringify(listed.structuredContent)}\n${s.stderr().slice(-3000)}`);
    const templates = listed.structuredContent.templates;
    const t = templates.find((x: any) => x.id === 'debian-x11');
    assert.equal(t?.availability, 'available', `debian-x11: ${t?.reason} (built by setup: vmhub-server golden build debian-x11)`);
    const example = templates.find((x: any) => x.id === 'debian-x11-example');
    assert.equal(example?.availability, 'unavailable', 'the template adapter is not installed yet');
    assert.match(example.reason, /adapter "example" is not installed/);

    const created = await s.call('vm_lease_create', { template: 'debian-x11', ttl_seconds: 900 });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    const lease = created.structuredContent.lease_id as string;
    const ready = await waitReady(s, lease, 180);
    assert.equal(ready.status, 'ready', JSON.stringify(ready));
    assert.notEqual(await containers(lease), '', 'the container carries the lease identity');
    for (const pid of s.reaperPids()) reapers.add(pid);
    const [reaper] = s.reaperPids();
    assert.ok(reaper, `the installed server started a reaper for the lease:\n${s.stderr()}`);
    const cmdline = readFileSync(`/proc/${reaper}/cmdline`, 'utf8');
    assert.ok(cmdline.includes(join(app, 'node_modules/@vmhub/reaper/')), `it is the installed @vmhub/reaper: ${cmdline}`);

    await screenshotDecodes(s, lease);

    // A command typed into a shell in an xterm writes a file; reading it back proves the keys arrived.
    const token = `vmhub-typed-${randomBytes(4).toString('hex')}`;
    const xterm = await s.call('vm_launch', { lease_id: lease, app: 'xterm', args: ['-T', 'vmhub-installed', '-e', 'sh'], wait_seconds: 10 });
    assert.equal(xterm.isError, undefined, JSON.stringify(xterm.structuredContent));
    await s.call('vm_focus', { lease_id: lease, window: xterm.structuredContent.window.id });
    await sleep(300);
    const typed = await s.call('vm_type', { lease_id: lease, text: `printf '%s\\n' ${token} > /tmp/vmhub-installed.txt\n` });
    assert.equal(typed.isError, undefined, JSON.stringify(typed.structuredContent));
    let arrived = '';
    const until = Date.now() + 20_000;
    while (arrived !== token && Date.now() < until) {
      arrived = (await s.call('vm_exec', { lease_id: lease, command: ['cat', '/tmp/vmhub-installed.txt'] })).structuredContent?.stdout?.trim() ?? '';
      if (arrived !== token) await sleep(250);
    }
    assert.equal(arrived, token, 'the typed command ran in the guest');

    const exec = await s.call('vm_exec', { lease_id: lease, shell: 'echo $((6 * 7)); echo to-stderr >&2; exit 3' });
    assert.equal(exec.isError, undefined, JSON.stringify(exec.structuredContent));
    assert.deepEqual([exec.structuredContent.stdout, exec.structuredContent.stderr, exec.structuredContent.exit_code], ['42\n', 'to-stderr\n', 3]);

    await releaseAndGone(s, lease);
    await s.close();
  });
});

describe('installed from the tarballs: no stand-ins, and the server says so when they are asked for', () => {
  it('the stand-in goldens are not installed; with VMHUB_STANDIN_TEMPLATES=1 doctor fails "stand-ins" saying they need a checkout', { timeout: 5 * 60_000 }, async () => {
    const installed = readdirSync(join(app, 'node_modules', '@vmhub'));
    assert.deepEqual(installed.filter((n) => /standin/.test(n)), [], `no stand-in package is installed with the server: ${installed.join(', ')}`);
    const r = await sh(join(app, 'node_modules', '.bin', 'vmhub-server'), ['doctor', '--json'], {
      cwd: app,
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: join(work, 'home'), VMHUB_CONFIG: configFile, VMHUB_STANDIN_TEMPLATES: '1' },
    });
    const report = JSON.parse(r.stdout) as { checks: { check: string; subject: string; status: string; detail: string; fix?: string }[] };
    const standins = report.checks.find((c) => c.subject === 'stand-ins (standin_templates)');
    assert.equal(standins?.status, 'fail', `doctor names the missing stand-ins:\n${r.stdout}${r.stderr}`);
    assert.match(standins.detail, /@vmhub\/standin-goldens, a private workspace package that only a checkout of the vmhub repository has/);
    assert.match(standins.fix ?? '', /run vmhub-server from a checkout/);
    assert.equal(r.code, 1, 'the check counts: doctor exits 1');
    assert.ok(!report.checks.some((c) => c.check === 'template' && /-standin$/.test(c.subject)), 'no stand-in template is offered');
  });
});

describe('installed from the tarballs: an adapter built from the template, installed beside the server', () => {
  it('packs, installs with npm, is discovered, and serves a lease', { timeout: 20 * 60_000 }, async (t) => {
    // A copy outside the repo, built with its own tsc against @vmhub/core (as `npm pack` would via prepack).
    const src = fileURLToPath(new URL('../../../examples/adapter-template/', import.meta.url));
    const copy = join(work, 'vmhub-adapter-example');
    cpSync(src, copy, { recursive: true, filter: (p) => !/[/\\](node_modules|dist)([/\\]|$)/.test(p.slice(src.length - 1)) });
    for (const name of ['@vmhub/core', '@types/node', 'typescript']) {
      mkdirSync(dirname(join(copy, 'node_modules', name)), { recursive: true });
      const local = fileURLToPath(new URL(`../node_modules/${name}`, import.meta.url));
      symlinkSync(realpathSync(existsSync(local) ? local : dirname(require.resolve(`${name}/package.json`))), join(copy, 'node_modules', name), 'dir');
    }
    const tsc = await sh(process.execPath, [join(copy, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: copy });
    assert.equal(tsc.code, 0, `the template does not build:\n${tsc.stdout}${tsc.stderr}`);
    rmSync(join(copy, 'node_modules'), { recursive: true, force: true });
    const pack = await sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packs], { cwd: copy, env: npmEnv() });
    assert.equal(pack.code, 0, `npm pack of the template failed:\n${pack.stdout}${pack.stderr}`);
    const tarball = join(packs, (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename);
    // The template peers on the @vmhub/core that will be published. Between releases the
    // workspace still carries the previous version (pending changesets bump it at release), and
    // npm would refuse that peer: then the range is checked against the version being released
    // and npm is told not to resolve peers (core is installed at the root either way).
    const peer = (JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies['@vmhub/core']!;
    const packedCore = packedList.find((p) => p.name === '@vmhub/core')!.version;
    const releasedCore = releaseVersion('@vmhub/core', packedCore);
    assert.ok(satisfies(releasedCore, peer), `the template peers on @vmhub/core "${peer}", which the @vmhub/core being released (${releasedCore}) does not satisfy: change the template's peerDependencies`);
    const preRelease = !satisfies(packedCore, peer);
    if (preRelease) t.diagnostic(`@vmhub/core is packed at ${packedCore}, released as ${releasedCore} (pending changesets): the template's peer "${peer}" is checked against ${releasedCore}, npm installs with --legacy-peer-deps`);
    await npmInstall([tarball], preRelease ? ['--legacy-peer-deps'] : []);

    const s = await connectInstalled();
    const healthy = await s.call('vm_health');
    assert.equal(healthy.isError, undefined, `vm_health from the installed server: ${JSON.stringify(healthy.structuredContent)}\n${s.stderr().slice(-3000)}`);
    const health = healthy.structuredContent;
    const plugin = health.plugins.find((p: any) => p.package === 'vmhub-adapter-example');
    assert.ok(plugin, `vm_health lists the installed template adapter: ${JSON.stringify(health.plugins)}`);
    assert.deepEqual([plugin.kind, plugin.id, plugin.ok, plugin.reason], ['adapter', 'example', true, undefined]);
    const template = (await s.call('vm_list_templates')).structuredContent.templates.find((x: any) => x.id === 'debian-x11-example');
    assert.equal(template?.availability, 'available', `debian-x11-example: ${template?.reason}`);
    assert.ok(template.capabilities.includes('screenshot'), JSON.stringify(template.capabilities));

    const created = await s.call('vm_lease_create', { template: 'debian-x11-example', ttl_seconds: 600 });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    const lease = created.structuredContent.lease_id as string;
    const ready = await waitReady(s, lease, 180);
    assert.equal(ready.status, 'ready', JSON.stringify(ready));
    for (const pid of s.reaperPids()) reapers.add(pid);
    await screenshotDecodes(s, lease);
    const exec = await s.call('vm_exec', { lease_id: lease, command: ['cat', '/etc/hostname'] });
    assert.equal(exec.structuredContent?.exit_code, 0, JSON.stringify(exec.structuredContent));
    await releaseAndGone(s, lease);
    await s.close();
  });
});

describe('installed from the tarballs: MCP clients nobody here wrote', () => {
  /** The installed bin as a client's config names it (this Node first on PATH, as in connectInstalled). */
  const server = (): ServerCommand => ({
    command: join(app, 'node_modules', '.bin', 'vmhub-server'), args: [],
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: join(work, 'home'), VMHUB_CONFIG: configFile, VMHUB_LOG_LEVEL: 'warn', VMHUB_TOOLSETS: 'all' },
  });
  const word = () => `vmhub-client-${randomBytes(3).toString('hex')}`;

  it('MCP Inspector CLI, one process per call: --strict finds no schema problem; create (wait_seconds) → exec → screenshot → release', { timeout: 10 * 60_000 }, async (t) => {
    const got = await installClient('inspector');
    if (got.skip !== undefined) return t.skip(got.skip);
    const strict = await inspector(got.dir, server(), ['--strict', '--method', 'tools/list']);
    assert.equal(strict.code, 0, `inspector --strict exit ${strict.code} (6: an error-severity schema problem):\n${strict.stderr}`);
    // With nothing to report it prints nothing; any problem (warning or error) is a line of its own.
    assert.doesNotMatch(strict.stderr, /^(Warning|Error): tool|\b[1-9]\d* (errors?|warnings?)\b/m, `the Inspector's schema portability report:\n${strict.stderr}`);
    // Each call below is a separate process: the server's stdin closes right after the call.
    const created = await inspectorCall(got.dir, server(), 'vm_lease_create', { template: 'debian-x11', ttl_seconds: 600, wait_seconds: 25 });
    const lease = created.structuredContent?.lease_id as string;
    assert.equal(created.structuredContent?.status, 'ready', `one call returns a ready lease: ${JSON.stringify(created)}`);
    assert.notEqual(await containers(lease), '', 'its container runs after the creating process exited');
    const w = word();
    const exec = await inspectorCall(got.dir, server(), 'vm_exec', { lease_id: lease, run: { shell: `echo ${w}` } });
    assert.equal(exec.structuredContent?.stdout, `${w}\n`, JSON.stringify(exec));
    const shot = await inspectorCall(got.dir, server(), 'vm_screenshot', { lease_id: lease });
    assert.ok((shot.content as { type: string }[]).some((c) => c.type === 'image'), JSON.stringify(shot).slice(0, 500));
    const released = await inspectorCall(got.dir, server(), 'vm_lease_release', { lease_id: lease });
    assert.equal(released.structuredContent?.status, 'released', JSON.stringify(released));
    assert.equal(await containers(lease), '', `the container of lease ${lease} is gone from the engine`);
  });

  it('Vercel AI SDK: its MCP client lists every tool and generateText runs a lease session', { timeout: 10 * 60_000 }, async (t) => {
    const got = await installClient('ai-sdk');
    if (got.skip !== undefined) return t.skip(got.skip);
    const w = word();
    const out = await sdkSession('ai-sdk', got.prefix, server(), 'debian-x11', w);
    assert.ok(out.tools.length >= 20 && out.tools.includes('vm_lease_create'), `tools: ${out.tools}`);
    assert.deepEqual(Object.keys(out.offered).sort(), out.tools, 'every tool reaches the model with its schema');
    assert.deepEqual(out.calls.map((c: { tool: string }) => c.tool), ['vm_lease_create', 'vm_exec', 'vm_screenshot', 'vm_lease_release'], out.stderr);
    assert.match(out.calls[0].result, /\\"status\\":\\"ready\\"/, 'the model saw a ready lease');
    assert.ok(out.calls[1].result.includes(`${w}\\\\n`), `the model saw the echoed word: ${out.calls[1].result}`);
    assert.match(out.calls[2].result, /image\/png/, 'the screenshot reached the model as an image');
    assert.match(out.calls[3].result, /\\"status\\":\\"released\\"/);
    assert.equal(out.text, 'done');
    assert.equal(await containers(out.lease_id), '', `the container of lease ${out.lease_id} is gone from the engine`);
  });

  it('OpenAI Agents SDK in strict mode: every tool converts with every parameter kept, and a lease session runs through them', { timeout: 10 * 60_000 }, async (t) => {
    const got = await installClient('openai-agents');
    if (got.skip !== undefined) return t.skip(got.skip);
    const w = word();
    const out = await sdkSession('openai-agents', got.prefix, server(), 'debian-x11', w);
    const degraded = out.tools.filter((n: string) => !out.strict[n]);
    assert.deepEqual(degraded, [], `tools the SDK could not make strict (it falls back to non-strict, which OpenAI's strict mode rejects):\n${out.stderr}`);
    for (const name of out.tools) {
      const lost = (out.listed[name] as string[]).filter((p) => !out.converted[name].includes(p));
      assert.deepEqual(lost, [], `${name}: parameters lost in the strict conversion`);
    }
    // vm_batch's steps must carry their own fields, or strict mode leaves a step only its action.
    for (const field of ['actions.x', 'actions.y', 'actions.text']) assert.ok(out.converted.vm_batch.includes(field), `vm_batch steps declare ${field}: ${out.converted.vm_batch}`);
    assert.deepEqual(out.calls.map((c: { tool: string }) => c.tool), ['vm_lease_create', 'vm_exec', 'vm_screenshot', 'vm_lease_release']);
    assert.match(out.calls[0].result, /\\"status\\":\\"ready\\"/, out.calls[0].result);
    assert.ok(out.calls[1].result.includes(`${w}\\\\n`), `the echoed word came back: ${out.calls[1].result}`);
    assert.match(out.calls[2].result, /"type":"image"/);
    assert.match(out.calls[3].result, /\\"status\\":\\"released\\"/);
    assert.equal(await containers(out.lease_id), '', `the container of lease ${out.lease_id} is gone from the engine`);
  });
});

describe('scripts/pack.mjs: its checks catch what they are for', () => {
  const entry = (path: string, body: string | number) => typeof body === 'number' ? { path, size: body, body: Buffer.alloc(0) } : { path, size: body.length, body: Buffer.from(body) };
  const manifest = (extra: Record<string, unknown> = {}) => JSON.stringify({ name: '@vmhub/x', version: '1.0.0', repository: { type: 'git', url: 'git+https://example.invalid/vmhub.git' }, engines: { node: '>=22' }, ...extra });
  const budgets = { '@vmhub/x': 10_000, '@vmhub/server': 10_000 };
  const good = () => [entry('package.json', manifest()), entry('LICENSE', 'MIT'), entry('README.md', '# x'), entry('dist/index.js', 100)];

  it('a complete tarball passes; each missing part is named with its fix', async () => {
    const { checkTarball } = await import(new URL('../../../scripts/pack.mjs', import.meta.url).href);
    assert.deepEqual(checkTarball('@vmhub/x', good(), budgets).problems, []);
    const without = (path: string) => good().filter((e) => e.path !== path);
    assert.match(checkTarball('@vmhub/x', without('LICENSE'), budgets).problems.join('\n'), /@vmhub\/x: no LICENSE/);
    assert.match(checkTarball('@vmhub/x', without('README.md'), budgets).problems.join('\n'), /@vmhub\/x: no README\.md/);
    const swap = (m: string) => [entry('package.json', m), ...good().slice(1)];
    assert.match(checkTarball('@vmhub/x', swap(manifest({ repository: undefined })), budgets).problems.join('\n'), /no repository/);
    assert.match(checkTarball('@vmhub/x', swap(manifest({ engines: { node: '>=20' } })), budgets).problems.join('\n'), /engines\.node is ">=20"/);
    assert.match(checkTarball('@vmhub/x', swap(manifest({ engines: { node: '>=22 || >=18' } })), budgets).problems.join('\n'), /engines\.node/);
    assert.deepEqual(checkTarball('@vmhub/x', swap(manifest({ engines: { node: '^22.18.0 || >=24' } })), budgets).problems, []);
    const ws = checkTarball('@vmhub/x', swap(manifest({ dependencies: { '@vmhub/core': 'workspace:^' }, peerDependencies: { '@vmhub/store': 'workspace:*' } })), budgets).problems.join('\n');
    assert.match(ws, /@vmhub\/x: packed package\.json keeps dependencies\.@vmhub\/core: workspace:\^/);
    assert.match(ws, /peerDependencies\.@vmhub\/store: workspace:\*/);
    const privates = new Set(['@vmhub/test-kit']);
    assert.match(checkTarball('@vmhub/x', swap(manifest({ dependencies: { '@vmhub/test-kit': '0.1.0' } })), budgets, privates).problems.join('\n'), /@vmhub\/x: dependencies\.@vmhub\/test-kit is a private workspace package/);
    assert.deepEqual(checkTarball('@vmhub/x', swap(manifest({ devDependencies: { '@vmhub/test-kit': '0.1.0' } })), budgets, privates).problems, [], 'a private devDependency is fine');
    const entries = swap(manifest({ exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }, bin: { x: './dist/bin.js' } }));
    assert.deepEqual(checkTarball('@vmhub/x', entries, budgets).problems.map((p: string) => /points at (\S+),/.exec(p)?.[1]), ['dist/index.d.ts', 'dist/bin.js'], 'unbuilt entries are named');
    assert.match(checkTarball('@vmhub/x', [...good(), entry('dist/big.js', 20_000)], budgets).problems.join('\n'), /exceeds its budget .*dist\/big\.js/);
    assert.match(checkTarball('@vmhub/new', good(), budgets).problems.join('\n'), /@vmhub\/new: no size budget/);
    assert.match(checkTarball('@vmhub/server', [...good(), entry('dist/bin.js.map', 10)], budgets).problems.join('\n'), /@vmhub\/server: ships 1 source maps/);
    assert.deepEqual(checkTarball('@vmhub/x', [...good(), entry('dist/index.js.map', 10)], budgets).problems, [], 'maps are a per-package choice elsewhere');
  });
});
