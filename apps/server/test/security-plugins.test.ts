// Security: what runs as vmhub (hardening issue, item 1). Plugins come only from the install's
// own node_modules: a `vmhub-provider-*` another user put in a parent folder's node_modules
// (/tmp/node_modules for an install under /tmp) is never imported — by the server, or by the
// reaper the server starts, or by a reaper run by hand. A plugin or a config file another user
// could write is refused with a message naming the path and the fix; a refused plugin is never
// imported, a refused config file stops start-up. Every planted plugin writes a marker file when
// imported: the marker must never appear.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, connect, connectOver, sandbox, waitReady, type Session, until } from './harness.ts';

const run = promisify(execFile);
const area = mkdtempSync(join(tmpdir(), 'vmhub-itest-plugin-trust-'));
const marker = join(area, 'PLANTED-PLUGIN-WAS-IMPORTED');
const reaperPids = new Set<number>();
after(() => {
  for (const pid of reaperPids) { try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ } }
  rmSync(area, { recursive: true, force: true });
});

const PLUGIN = (id: string) => `import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(marker)}, ${JSON.stringify(id)} + ' imported by pid ' + process.pid + '\\n', { flag: 'a' });
export default { kind: 'provider', id: ${JSON.stringify(id)}, version: '1', contractVersion: 2, capabilities: [], verbs: [], templates: [], create() { return {}; } };
`;
function plant(dir: string, name: string, id: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '6.6.6', type: 'module', exports: { '.': './index.js' } }));
  writeFileSync(join(dir, 'index.js'), PLUGIN(id));
  return dir;
}
const workspaceDir = (name: string) => realpathSync(fileURLToPath(new URL(`../node_modules/${name}`, import.meta.url)));

describe('security: a plugin planted in a parent node_modules never runs', () => {
  // <area>/node_modules is the world-writable parent's node_modules; the server is installed below
  // it, npm-style, in <area>/app/node_modules (the built server and reaper copied there, the rest
  // linked from this workspace). @vmhub/provider-qemu, a dependency of both, is left out of the
  // install: Node's own lookup would climb to the planted copy.
  const planted = join(area, 'node_modules');
  plant(join(planted, 'vmhub-provider-planted'), 'vmhub-provider-planted', 'planted');
  plant(join(planted, '@team', 'vmhub-provider-scoped'), '@team/vmhub-provider-scoped', 'scoped');
  plant(join(planted, '@vmhub', 'provider-qemu'), '@vmhub/provider-qemu', 'qemu');
  const install = join(area, 'app', 'node_modules');
  const server = join(install, '@vmhub', 'server');
  const reaper = join(install, '@vmhub', 'reaper');
  const serverSrc = fileURLToPath(new URL('../', import.meta.url));
  for (const part of ['package.json', 'dist', 'docs']) cpSync(join(serverSrc, part), join(server, part), { recursive: true });
  const reaperSrc = workspaceDir('@vmhub/reaper');
  for (const part of ['package.json', 'dist']) cpSync(join(reaperSrc, part), join(reaper, part), { recursive: true });
  for (const name of ['@vmhub/core', '@vmhub/store', '@vmhub/conformance', 'better-sqlite3', 'sharp']) {
    mkdirSync(dirname(join(install, name)), { recursive: true });
    symlinkSync(workspaceDir(name), join(install, name), 'dir');
  }
  const db = join(area, 'state', 'vmhub.db');
  const configFile = join(area, 'config.json');
  writeFileSync(configFile, JSON.stringify({
    instance: 'planted', db, toolsets: ['all'], plugins: ['@vmhub/conformance/fake'], providers: { fake: { dir: join(area, 'fake') } },
    templates: [{ id: 'fake-desktop', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 100 } }],
    reaper: { autostart: true, interval_seconds: 1 },
  }));
  const env = { PATH: process.env.PATH ?? '', HOME: area, VMHUB_CONFIG: configFile, VMHUB_LOG_LEVEL: 'info' };

  it('the server and the reaper it starts import none of them; vm_health says the copy above was not used', { timeout: 120_000 }, async () => {
    const s = await connectOver(new StdioClientTransport({ command: process.execPath, args: [join(server, 'dist', 'bin.js')], cwd: join(area, 'app'), env, stderr: 'pipe' }), 'planted-test');
    try {
      const health = (await s.call('vm_health')).structuredContent;
      const plugins = health.plugins as { id: string; package: string; ok: boolean; reason?: string }[];
      assert.ok(plugins.some((p) => p.id === 'fake' && p.ok), `the install's own plugins load: ${JSON.stringify(plugins)}`);
      assert.equal(plugins.some((p) => /planted|scoped/.test(p.package)), false, `nothing from ${planted} is listed: ${JSON.stringify(plugins)}`);
      const qemu = plugins.find((p) => p.package === '@vmhub/provider-qemu');
      assert.match(qemu?.reason ?? '', new RegExp(`not installed where @vmhub/server can import it.*the copy in ${join(planted, '@vmhub', 'provider-qemu')} is not used: packages are loaded only from this install's own node_modules \\(${install}\\)`));

      // A lease makes the server start its reaper (the installed copy, discovering from its own install).
      const lease = (await s.call('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id as string;
      assert.equal((await waitReady(s, lease)).status, 'ready');
      const started = await until(() => /"msg":"reaper started for this store","pid":(\d+)/.exec(s.stderr()), `the server to start a reaper:\n${s.stderr()}`, 20_000);
      reaperPids.add(Number(started[1]));
      const log = join(area, 'state', 'reaper.log');
      await until(() => existsSync(log) && /reaper ready/.test(readFileSync(log, 'utf8')), 'the reaper to be ready (its plugins discovered)', 20_000);
      assert.match(readFileSync(`/proc/${started[1]}/cmdline`, 'utf8'), new RegExp(reaper), 'the reaper started is the installed copy');
      await s.call('vm_lease_release', { lease_id: lease });
    } finally {
      await s.close();
    }
    assert.equal(existsSync(marker), false, `a planted plugin was imported: ${existsSync(marker) ? readFileSync(marker, 'utf8') : ''}`);
  });

  it('a reaper run by hand (--once) imports none of them either', { timeout: 60_000 }, async () => {
    const r = await run(process.execPath, [join(reaper, 'dist', 'bin.js'), '--once', '--json', '--db', db], { env, cwd: area }).catch((e) => e as { stdout: string; stderr: string });
    assert.match(r.stderr, /"msg":"reaper ready"/, r.stderr);
    assert.match(r.stderr, /@vmhub\/provider-qemu.*is not used: packages are loaded only from this install's own node_modules/, r.stderr);
    assert.equal(existsSync(marker), false, `a planted plugin was imported: ${existsSync(marker) ? readFileSync(marker, 'utf8') : ''}`);
  });
});

describe('security: a plugin or config file another user could write is refused', () => {
  it('a world-writable plugin directory in VMHUB_PLUGINS: unusable in vm_health with the path and chmod, never imported', { timeout: 60_000 }, async () => {
    const dir = plant(join(area, 'loose', 'vmhub-provider-ww'), 'vmhub-provider-ww', 'ww');
    chmodSync(dir, 0o777);
    const box = sandbox({}, [{ id: 'ww-desktop', provider: 'ww', adapter: 'fake', os: 'linux', golden: 'g' }]);
    let s: Session | undefined;
    try {
      s = await connect(box, { VMHUB_PLUGINS: dir });
      const health = (await s.call('vm_health')).structuredContent;
      const entry = health.plugins.find((p: any) => p.package === 'vmhub-provider-ww');
      const message = `plugin vmhub-provider-ww (${join(dir, 'index.js')}) was not loaded: ${dir} is writable by its group and by others (mode 0777), so whoever can write it could run code as vmhub: chmod go-w ${dir} (or install the plugin where only you and root can write)`;
      assert.deepEqual(entry, { id: 'vmhub-provider-ww', kind: 'package', package: 'vmhub-provider-ww', version: '6.6.6', ok: false, reason: message });
      const template = (await s.call('vm_list_templates')).structuredContent.templates.find((t: any) => t.id === 'ww-desktop');
      assert.equal(template.availability, 'unavailable');
      assert.equal(template.reason, `provider "ww" is unusable: ${message}`);
      assert.equal(existsSync(marker), false, 'the refused plugin was not imported');
    } finally {
      await s?.close();
      box.cleanup();
    }
  });

  it('a group- or world-writable config file stops the server and the reaper with the path and chmod', { timeout: 60_000 }, async () => {
    const box = sandbox();
    try {
      chmodSync(box.configFile, 0o666);
      const expected = `[vmhub] config file ${box.configFile} is writable by its group and by others (mode 0666): vmhub does not read it, since whoever can write it could make vmhub run their code; fix: chmod go-w ${box.configFile}`;
      const srv = await exit(process.execPath, [BIN], { VMHUB_CONFIG: box.configFile });
      assert.deepEqual([srv.code, srv.stderr.trim()], [2, expected]);
      const reaperBin = join(workspaceDir('@vmhub/reaper'), 'dist', 'bin.js');
      const rp = await exit(process.execPath, [reaperBin, '--once', '--json'], { VMHUB_CONFIG: box.configFile });
      assert.equal(rp.code, 2, rp.stderr);
      assert.equal(JSON.parse(rp.stderr.trim().split('\n').at(-1)!).error, expected);
      chmodSync(box.configFile, 0o644);
      const fixed = await exit(process.execPath, [BIN, 'leases', 'list'], { VMHUB_CONFIG: box.configFile });
      assert.equal(fixed.code, 0, `after chmod go-w it starts: ${fixed.stderr}`);
    } finally {
      box.cleanup();
    }
  });
});

function exit(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { PATH: process.env.PATH ?? '', HOME: area, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
