/**
 * Leases resumed from a saved VM state, on a real qemu (TCG here). Two provider instances on one
 * state directory (two servers, or a server and the reaper) create the first two leases of the
 * agent golden at once: the state is made once. Restored leases are checked in the guest: their
 * RNG differs (vmgenid reseed, seen in dmesg), their clock was set, keys typed at the hypervisor
 * reach the shell (serial log), the guest agent runs commands; destroy removes them by verified
 * identity. A disk golden gets the chain golden ← saved disk ← lease overlay, the saved disk is
 * never written. A corrupted saved state falls back to a cold boot; a missing one is made again.
 * A process SIGKILLed while it makes a state takes the saving VM with it.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import type { ConsoleHandle, MachineRef, Provider, TemplateConfig } from '@vmhub/core';
import plugin, { buildGolden, tinyConsoleAgentTemplate } from '../src/index.ts';
import { isAlive, procInfo } from '../src/proc.ts';
import { until, untilFileHas } from '@vmhub/test-kit';
import { testContext, testPrefix, tinyConsoleSetup } from './helpers.ts';

const SAVED = '.saved-states';

/** The argv of every qemu process on this host whose -name is `identity` (read from /proc). */
function qemusOf(identity: string): string[][] {
  const out: string[][] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    let argv: string[];
    try { argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean); } catch { continue; }
    const at = argv.indexOf('-name');
    if (/qemu-system/.test(argv[0] ?? '') && at >= 0 && argv[at + 1]!.split(',')[0]!.replace(/^guest=/, '') === identity) out.push(argv);
  }
  return out;
}

/** qcodes for the characters the tests type (letters, digits, a few symbols). */
function qcodes(text: string): string[][] {
  const named: Record<string, string[]> = { ' ': ['spc'], '/': ['slash'], '>': ['shift', 'dot'], '-': ['minus'], '.': ['dot'], '\n': ['ret'] };
  return [...text].map((c) => {
    if (named[c]) return named[c];
    if (/[a-z0-9]/.test(c)) return [c];
    if (/[A-Z]/.test(c)) return ['shift', c.toLowerCase()];
    throw new Error(`no qcode for ${c}`);
  });
}

async function typeKeys(con: ConsoleHandle, text: string): Promise<void> {
  for (const keys of qcodes(text)) await con.execute('send-key', { keys: keys.map((k) => ({ type: 'qcode', data: k })) });
}

describe('qemu: leases resumed from a saved VM state', { timeout: 600_000 }, () => {
  const prefix = testPrefix();
  const logs: string[] = [];
  let root: string;
  let stateDir: string;
  let agent: TemplateConfig;
  let console_: TemplateConfig;
  let disk: TemplateConfig;
  let goldenDisk: string;
  let a: Provider;
  let b: Provider;
  const machines: MachineRef[] = [];

  const newIdentity = () => `${prefix}${randomUUID()}`;
  async function lease(p: Provider, template: TemplateConfig): Promise<{ m: MachineRef; stages: string[]; ms: number }> {
    const identity = newIdentity();
    const started = Date.now();
    const m = await p.create({ lease_id: identity.slice(prefix.length), identity, template, signal: AbortSignal.timeout(240_000) });
    machines.push(m);
    const stages: string[] = [];
    await p.ready(m, { template, signal: AbortSignal.timeout(240_000), stage: (n, s, d) => { stages.push(`${n}:${s}${d ? ` ${d}` : ''}`); } });
    return { m, stages, ms: Date.now() - started };
  }
  async function sh(p: Provider, m: MachineRef, script: string): Promise<string> {
    const ch = await p.channel!(m, agent);
    try {
      const r = await ch.exec(['/bin/sh', '-c', script], { timeoutMs: 30_000 });
      assert.equal(r.exit_code, 0, `${script}: ${r.stderr.toString()}`);
      return r.stdout.toString();
    } finally { await ch.close(); }
  }
  const savedDirs = () => readdirSync(join(stateDir, SAVED));
  const recordOf = async (m: MachineRef) => JSON.parse(await readFile(join(stateDir, m.identity, 'identity.json'), 'utf8'));

  before(async () => {
    const setup = await tinyConsoleSetup();
    root = setup.root;
    console_ = setup.template;
    disk = setup.diskTemplate;
    goldenDisk = setup.goldenDisk;
    await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });
    agent = tinyConsoleAgentTemplate(join(root, 'golden'));
    stateDir = join(root, 'state');
    a = plugin.create({ state_dir: stateDir }, testContext(prefix, logs));
    b = plugin.create({ state_dir: stateDir }, testContext(prefix, logs));
  });

  after(async () => {
    for (const m of machines) await a.destroy(m).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  });

  let first: { m: MachineRef; stages: string[]; ms: number };
  let second: { m: MachineRef; stages: string[]; ms: number };

  test('two concurrent first creates (two provider instances) make the saved state once; both resume from it', async (t) => {
    [first, second] = await Promise.all([lease(a, agent), lease(b, agent)]);
    t.diagnostic(`first creates → ready: ${first.ms} ms, ${second.ms} ms (boot + save + restore)`);
    const makes = logs.filter((l) => l.includes('making a saved VM state'));
    assert.equal(makes.length, 1, `one make: ${makes.join(' | ')}`);
    assert.equal(logs.filter((l) => l.includes('saved VM state made')).length, 1);
    assert.equal(first.m.details?.restored_from, second.m.details?.restored_from);
    assert.match(String(first.m.details?.restored_from), /^tiny-console-agent-[0-9a-f]{16}$/);
    const name = String(first.m.details?.restored_from);
    assert.deepEqual(savedDirs(), [name], 'one saved state, no lock, work directory or failure note left');
    const manifest = JSON.parse(await readFile(join(stateDir, SAVED, name, 'manifest.json'), 'utf8'));
    assert.equal(manifest.guest_rng_ready, true, 'the guest RNG was initialized before the save');
    assert.match(manifest.qemu_version, /QEMU emulator version/);
    assert.ok(manifest.inputs.argv.includes('vmgenid,guid=auto'));
    assert.equal(((await stat(join(stateDir, SAVED, name, 'state.bin'))).mode & 0o777), 0o444, 'read-only');
    for (const l of [first, second]) {
      assert.deepEqual(l.stages.map((s) => s.split(' ')[0]), ['process:running', 'process:done', 'qmp:running', 'qmp:done', 'guest:running', 'guest:done']);
      assert.match(l.stages.at(-1)!, /resumed from saved state tiny-console-agent-.*guest agent answered guest-sync; guest clock being set to the host's \(guest-set-time sent/);
      assert.match(l.stages[3]!, /vm running/);
      const rec = await recordOf(l.m);
      assert.equal(rec.restored_from, name);
      const info = await procInfo(rec.pid);
      assert.ok(isAlive(info));
      assert.equal(info.argv[info.argv.indexOf('-name') + 1], l.m.identity, 'the restored qemu carries its own identity');
      assert.ok(info.argv.includes('vmgenid,guid=auto') && info.argv.includes('-incoming'));
    }
  });

  test('two restored leases read different /dev/urandom bytes right after ready; dmesg shows the vmgenid reseed', async () => {
    const read = 'head -c 16 /dev/urandom | od -An -tx1 | tr -d " \\n"';
    const [x, y] = await Promise.all([sh(a, first.m, read), sh(b, second.m, read)]);
    assert.match(x, /^[0-9a-f]{32}$/);
    assert.notEqual(x, y, 'two VMs resumed from one saved state must not share their RNG output');
    for (const [p, m] of [[a, first.m], [b, second.m]] as const) {
      const dmesg = await sh(p, m, 'dmesg');
      assert.match(dmesg, /random: crng reseeded due to virtual machine fork/, 'the guest kernel reseeded on the vmgenid notify');
      assert.equal(dmesg.match(/crng init done/g)?.length, 1, 'the RNG was initialized once, before the save');
    }
  });

  test('a restored lease is usable: keys typed on its console reach the shell (serial log), the guest agent runs commands, its clock was set', async (t) => {
    const name = String(first.m.details?.restored_from);
    const made = Date.parse(JSON.parse(await readFile(join(stateDir, SAVED, name, 'manifest.json'), 'utf8')).created_at);
    // Let the saved state age, so an unset guest clock would be visibly behind.
    if (Date.now() - made < 8_000) await new Promise((r) => setTimeout(r, 8_000 - (Date.now() - made)));
    const third = await lease(a, agent);
    t.diagnostic(`restored create → ready: ${third.ms} ms; saved state age ${Math.round((Date.now() - made) / 1000)} s`);
    assert.equal(third.m.details?.restored_from, name);
    const guest = Number((await sh(a, third.m, 'date +%s')).trim());
    assert.ok(Math.abs(guest - Date.now() / 1000) < 3, `guest clock ${guest} vs host ${Math.floor(Date.now() / 1000)} (saved ${Math.round((Date.now() - made) / 1000)} s ago)`);
    assert.equal((await sh(a, third.m, 'echo agent-ok; id -u')).trim(), 'agent-ok\n0');
    const con = await a.console!(third.m);
    try {
      const marker = `vmhub-typed-${randomBytes(4).toString('hex')}`;
      await typeKeys(con, `echo ${marker} > /dev/ttyS0\n`);
      const serial = join(stateDir, third.m.identity, 'serial.log');
      await untilFileHas(serial, marker, 30_000);
      assert.ok(!(await readFile(serial, 'latin1')).includes('VMHUB-TINY-CONSOLE-READY'), 'the marker came before the save: this serial log starts at the restore');
    } finally { await con.close(); }
  });

  test('destroy removes a restored VM by verified identity; the saved state stays', async () => {
    const rec = await recordOf(first.m);
    assert.equal(await b.destroy(first.m), 'destroyed');
    assert.ok(!isAlive(await procInfo(rec.pid)), 'qemu process gone');
    assert.ok(!existsSync(join(stateDir, first.m.identity)), 'lease directory gone');
    assert.equal(await a.destroy(first.m), 'already_gone');
    const name = String(first.m.details?.restored_from);
    assert.ok(existsSync(join(stateDir, SAVED, name, 'state.bin')), 'the saved state is the template\'s, not the lease\'s');
    assert.deepEqual((await a.list()).map((m) => m.identity).sort(), machines.filter((m) => existsSync(join(stateDir, m.identity))).map((m) => m.identity).sort(), 'list shows leases only, never the saved states');
  });

  test('a disk golden: golden ← saved disk ← lease overlay; the saved disk is never written', async () => {
    const l = await lease(a, disk);
    const name = String(l.m.details?.restored_from);
    assert.match(name, /^tiny-console-disk-[0-9a-f]{16}$/);
    const savedDisk = join(stateDir, SAVED, name, 'disk.qcow2');
    const before = await stat(savedDisk);
    assert.equal(before.mode & 0o777, 0o444);
    const dir = join(stateDir, l.m.identity);
    const overlay = JSON.parse((await execa('qemu-img', ['info', '--output=json', '-U', '--backing-chain', join(dir, 'disk.qcow2')])).stdout);
    assert.equal(overlay[0]['backing-filename'], 'saved-disk.qcow2', 'named relatively, so the chain holds in any directory linking its layers (snapshots, forks)');
    assert.equal(overlay[0]['full-backing-filename'], join(dir, 'saved-disk.qcow2'));
    assert.equal(overlay[1]['backing-filename'], goldenDisk);
    assert.equal((await stat(join(dir, 'saved-disk.qcow2'))).ino, before.ino, 'the lease holds a hard link to the saved disk');
    // The guest writes to its disk (raw, no filesystem): the lease's overlay takes it.
    const con = await a.console!(l.m);
    try { await typeKeys(con, 'echo written > /dev/vda\n'); } finally { await con.close(); }
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal(await a.destroy(l.m), 'destroyed');
    const afterStat = await stat(savedDisk);
    assert.equal(afterStat.mtimeMs, before.mtimeMs, 'saved disk untouched');
    assert.equal(afterStat.size, before.size);
  });

  test('a corrupted saved state: the lease cold-boots (logged) and becomes ready; a missing one is made again', async () => {
    const l0 = await lease(a, console_);
    const name = String(l0.m.details?.restored_from);
    assert.match(name, /^tiny-console-[0-9a-f]{16}$/);
    await a.destroy(l0.m);
    const file = join(stateDir, SAVED, name, 'state.bin');
    await chmod(file, 0o644);
    await writeFile(file, randomBytes(1 << 20));
    const cold = await lease(a, console_);
    assert.equal(cold.m.details?.restored_from, undefined, 'cold boot');
    assert.equal((await recordOf(cold.m)).restored_from, undefined);
    assert.match(cold.stages.at(-1)!, /serial marker VMHUB-TINY-CONSOLE-READY/, 'readiness waited for the boot');
    assert.ok(logs.some((x) => x.includes('cold boot instead of the saved VM state') && x.includes(name) && /resuming from saved state .* failed/.test(x)), logs.filter((x) => x.includes('cold boot')).join('\n'));
    assert.ok(!existsSync(join(stateDir, cold.m.identity, 'saved-state.bin')), 'no leftovers of the failed restore');
    // Exactly one qemu for the lease — the failed restore's is gone — and it is the cold boot's.
    const running = qemusOf(cold.m.identity);
    assert.equal(running.length, 1, running.map((argv) => argv.join(' ')).join('\n'));
    assert.ok(!running[0]!.includes('-incoming'), running[0]!.join(' '));
    await a.destroy(cold.m);

    await rm(join(stateDir, SAVED, name), { recursive: true, force: true });
    const again = await lease(a, console_);
    assert.equal(again.m.details?.restored_from, name, 'made again, then resumed');
    await a.destroy(again.m);
  });

  test('a process killed while it makes a saved state leaves no qemu behind (the maker VM dies with it)', async () => {
    const dir = join(root, 'state-killed');
    // A separate process (as a server would be) starts the first lease of a fresh state directory.
    const script = `
      const { default: plugin } = await import(${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)});
      const p = plugin.create({ state_dir: ${JSON.stringify(dir)} }, { identityPrefix: ${JSON.stringify(prefix)}, log: () => {} });
      await p.create({ lease_id: 'killed', identity: ${JSON.stringify(`${prefix}killed`)}, template: ${JSON.stringify(console_)}, signal: AbortSignal.timeout(240_000) });
    `;
    const child = execa(process.execPath, ['--input-type=module', '-e', script], { reject: false });
    const maker = await until(async () => {
      const { stdout } = await execa('pgrep', ['-f', '--', 'vmhub[.]saved-state[.]'], { reject: false });
      for (const pid of stdout.split('\n').filter(Boolean).map(Number)) {
        const info = await procInfo(pid);
        if (isAlive(info) && info.argv.some((a) => a.includes(dir)) && info.argv[0]!.startsWith('qemu-system')) return pid;
      }
      return undefined;
    }, 'the saved-state maker qemu', 120_000);
    child.kill('SIGKILL');
    await child;
    await until(async () => !isAlive(await procInfo(maker)), 'the maker qemu to exit with its process', 10_000);
    assert.ok(!isAlive(await procInfo(maker)));

    // The dead maker left its lock and work directory: the next creator (another process's lock,
    // so not joined in memory) takes the lock over, sweeps the work directory, makes the state
    // and resumes from it; nothing of the dead maker's is left.
    const leftover = () => readdirSync(join(dir, SAVED)).filter((e) => e.endsWith('.lock') || e.startsWith('.m-'));
    assert.ok(leftover().some((e) => e.endsWith('.lock')), `the dead maker's lock is there: ${readdirSync(join(dir, SAVED)).join(' ')}`);
    const next = plugin.create({ state_dir: dir }, testContext(prefix, logs));
    const l = await lease(next, console_);
    assert.match(String(l.m.details?.restored_from), /^tiny-console-[0-9a-f]{16}$/);
    assert.ok(logs.some((x) => x.includes('took over the saved-state lock of a maker that is gone')));
    assert.deepEqual(leftover(), []);
    await next.destroy(l.m);
  });
});
