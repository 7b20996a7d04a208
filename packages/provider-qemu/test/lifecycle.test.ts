/**
 * The provider against a real qemu-system (TCG here; KVM where usable), cold boot (saved states
 * off: saved-state.test.ts covers leases resumed from one). One boot for the whole file: create → ready (stages) → state dir → console → list → decoys → destroy from a second
 * provider instance (the reaper's position) while the monitor is held and a console is open →
 * everything gone.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { parsePpm, type ConsoleHandle, type MachineRef, type Provider, type TemplateConfig } from '@vmhub/core';
import plugin, { QmpClient } from '../src/index.ts';
import { procInfo, isAlive } from '../src/proc.ts';
import { idleQemu, sleeper, testContext, testPrefix, tinyConsoleSetup } from './helpers.ts';

describe('qemu: lifecycle on a real qemu', { timeout: 400_000 }, () => {
  const prefix = testPrefix();
  const identity = `${prefix}${randomUUID()}`;
  const logs: string[] = [];
  let root: string;
  let stateDir: string;
  let template: TemplateConfig;
  let goldenDisk: string;
  let provider: Provider;
  let machine: MachineRef;
  const stages: string[] = [];
  const decoys: ChildProcess[] = [];
  let con: ConsoleHandle | undefined;

  before(async () => {
    const setup = await tinyConsoleSetup();
    root = setup.root;
    template = setup.diskTemplate;
    goldenDisk = setup.goldenDisk;
    stateDir = join(root, 'state');
    provider = plugin.create({ state_dir: stateDir, saved_state: false }, testContext(prefix, logs));
  });

  after(async () => {
    await con?.close();
    if (machine) await provider.destroy(machine).catch(() => undefined);
    await provider.close?.();
    for (const d of decoys) d.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  test('create → ready walks process, qmp, guest', async (t) => {
    assert.deepEqual(await provider.availability(template), { availability: 'available' });
    const started = Date.now();
    machine = await provider.create({ lease_id: identity.slice(prefix.length), identity, template, signal: AbortSignal.timeout(60_000) });
    assert.equal(machine.identity, identity);
    await provider.ready(machine, { template, signal: AbortSignal.timeout(240_000), stage: (name, status) => { stages.push(`${name}:${status}`); } });
    t.diagnostic(`boot → ready: ${Date.now() - started} ms (accel ${String(machine.details?.accel)})`);
    assert.deepEqual(stages, ['process:running', 'process:done', 'qmp:running', 'qmp:done', 'guest:running', 'guest:done']);
  });

  test('state dir holds the identity record, an overlay backed by the golden, sockets and the serial log', async () => {
    const dir = join(stateDir, identity);
    const rec = JSON.parse(await readFile(join(dir, 'identity.json'), 'utf8'));
    assert.equal(rec.identity, identity);
    assert.equal(rec.template, 'tiny-console-disk');
    const info = await procInfo(rec.pid);
    assert.ok(isAlive(info), 'qemu is running');
    assert.equal(info.startTime, rec.pid_start_time);
    assert.equal(info.argv[info.argv.indexOf('-name') + 1], identity, 'the identity is in qemu argv');
    assert.equal(info.argv[info.argv.indexOf('-nic') + 1], 'none', 'no network unless the template asks');
    const img = JSON.parse((await execa('qemu-img', ['info', '--output=json', '-U', join(dir, 'disk.qcow2')])).stdout);
    assert.equal(img['backing-filename'], goldenDisk);
    for (const f of ['qmp.sock', 'console.sock', 'serial.log']) assert.ok(existsSync(join(dir, f)), f);
    assert.match(await readFile(join(dir, 'serial.log'), 'latin1'), /VMHUB-TINY-CONSOLE-READY/);
  });

  test('console: screendump is a frame with text on it, temp files removed; a new console per call', async () => {
    const first = await provider.console!(machine);
    assert.equal((await first.screendump()).format, 'png');
    await first.close();
    await assert.rejects(first.screendump(), /was closed: open a new one with console\(\)/, 'a closed console stays closed');
    con = await provider.console!(machine);
    assert.notEqual(con, first, 'console() opens a new connection each call');
    const png = await con.screendump();
    assert.equal(png.format, 'png');
    assert.ok(png.width >= 640 && png.height >= 400, `${png.width}x${png.height}`);
    // A second capture as PPM (QMP passthrough) lets the test count lit pixels without an image library.
    const ppmPath = join(stateDir, identity, 'check.ppm');
    await con.execute('screendump', { filename: ppmPath, format: 'ppm' });
    const { pixels } = parsePpm(await readFile(ppmPath));
    await rm(ppmPath);
    let lit = 0;
    for (let i = 0; i < pixels.length; i += 3) if (pixels[i]! + pixels[i + 1]! + pixels[i + 2]! > 150) lit++;
    assert.ok(lit > 500, `console shows text (${lit} lit pixels)`);
    const leftovers = (await import('node:fs')).readdirSync(join(stateDir, identity)).filter((f) => f.startsWith('screen-'));
    assert.deepEqual(leftovers, []);
    // The console stays open (as a lease session's would) through the tests below, destroy included.
  });

  test('a forged identity on the real state dir is refused; no channel without a guest agent', async () => {
    const forged = { ...machine, identity: `${prefix}${randomUUID()}` };
    assert.equal(await provider.destroy(forged), 'identity_mismatch');
    const rec = JSON.parse(await readFile(join(stateDir, identity, 'identity.json'), 'utf8'));
    assert.ok(isAlive(await procInfo(rec.pid)), 'machine untouched');
    await assert.rejects(provider.channel!(machine, template), (e: { code?: string; message: string }) => e.code === 'CAPABILITY_UNAVAILABLE' && /this template has no guest agent channel/.test(e.message));
  });

  test('decoys: a foreign qemu, a look-alike name and an unrelated pid are never touched', async () => {
    const foreign = await idleQemu('something-else');
    const lookAlikeUuid = randomUUID();
    const lookAlike = await idleQemu(lookAlikeUuid); // the lease uuid without the identity prefix
    const sleep = await sleeper();
    decoys.push(foreign, lookAlike, sleep);
    const forge = async (id: string, pid: number) => {
      const dir = join(stateDir, id);
      await mkdir(dir, { recursive: true });
      const info = await procInfo(pid);
      await writeFile(join(dir, 'identity.json'), JSON.stringify({ identity: id, lease_id: id.slice(prefix.length), template: 'x', created_at: new Date().toISOString(), pid, pid_start_time: info!.startTime, accel: 'tcg', guest_agent: false }));
      return { identity: id, external_id: dir };
    };
    const forged = [
      await forge(`${prefix}${lookAlikeUuid}`, lookAlike.pid!),
      await forge(`${prefix}${randomUUID()}`, sleep.pid!),
      await forge(`${prefix}${randomUUID()}`, foreign.pid!),
    ];
    const listed = (await provider.list()).map((m) => m.identity).sort();
    assert.deepEqual(listed, [identity, ...forged.map((f) => f.identity)].sort(), 'list shows state dirs under this prefix only');
    for (const f of forged) assert.equal(await provider.destroy(f), 'identity_mismatch', f.identity);
    // A record naming another identity than its directory is refused; an unknown identity is already gone.
    const swapped = await forge(`${prefix}${randomUUID()}`, sleep.pid!);
    const moved = join(stateDir, `${prefix}${randomUUID()}`);
    await (await import('node:fs/promises')).rename(swapped.external_id, moved);
    assert.equal(await provider.destroy({ identity: moved.slice(stateDir.length + 1), external_id: moved }), 'identity_mismatch');
    await rm(moved, { recursive: true });
    assert.equal(await provider.destroy({ identity: `${prefix}${randomUUID()}`, external_id: 'x' }), 'already_gone');
    await new Promise((r) => setTimeout(r, 300));
    for (const d of [foreign, lookAlike, sleep]) assert.ok(isAlive(await procInfo(d.pid!)), `decoy ${d.pid} still alive`);
    for (const f of forged) assert.ok(existsSync(f.external_id), 'a mismatched state dir is left for an operator');
    for (const f of forged) await rm(f.external_id, { recursive: true, force: true });
  });

  test('destroy from a second provider instance (the reaper) while the server holds the monitor', async (t) => {
    const rec = JSON.parse(await readFile(join(stateDir, identity, 'identity.json'), 'utf8'));
    // Another process holds the single-client lifecycle monitor (a server's ready() in progress,
    // an operator's qmp-shell), so the reaper's quit cannot get through: it must fall back to
    // SIGTERM. The lease's console (opened above, on its own monitor) is still open too.
    const holder = await QmpClient.connect(join(stateDir, identity, 'qmp.sock'), { protocol: 'qmp', timeoutMs: 10_000, label: 'holder' });
    const reaper = plugin.create({ state_dir: stateDir, saved_state: false }, testContext(prefix, logs));
    const started = Date.now();
    assert.equal(await reaper.destroy(machine), 'destroyed');
    t.diagnostic(`reaper destroy with the monitor busy: ${Date.now() - started} ms`);
    holder.close();
    const info = await procInfo(rec.pid);
    assert.ok(!isAlive(info), 'qemu process gone');
    assert.ok(!existsSync(join(stateDir, identity)), 'state dir and overlay deleted');
    const closing = Date.now();
    await con!.close();
    assert.ok(Date.now() - closing < 3000, 'closing the dead machine\'s console resolves at once');
    con = undefined;
    assert.equal(await reaper.destroy(machine), 'already_gone');
    assert.deepEqual(await reaper.list(), []);
    for (const d of decoys) assert.ok(isAlive(await procInfo(d.pid!)), 'decoys survive the teardown');
    machine = undefined as unknown as MachineRef;
  });
});
