/**
 * adb-pool against two REAL adbd devices (test/devices.ts): claim, exhaustion, a second process
 * seeing the claims, the reset's effects checked on the device through the adb client, identity
 * and fingerprint mismatches refused, a device that went away.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { VmhubError, type MachineRef, type Provider, type TemplateConfig } from '@vmhub/core';
import adbPool, { androidDeviceTemplate } from '../src/index.ts';
import { devicesMissing, startLab, type Lab } from './devices.ts';

const skip = devicesMissing();
const prefix = `vmhub-pooltest${process.pid}-`;
const template: TemplateConfig = { ...androidDeviceTemplate, ready_timeout_seconds: 30 };
const signal = () => AbortSignal.timeout(60_000);
const stages = () => ({ signal: signal(), template, stage: () => undefined });

describe('adb-pool on two real adbd devices', { skip, timeout: 240_000 }, () => {
  let lab: Lab;
  let stateDir: string;
  let options: Record<string, unknown>;
  let pool: Provider;
  const logs: string[] = [];
  const lease = (id = randomUUID()) => ({ lease_id: id, identity: `${prefix}${id}`, template, signal: signal() });

  before(async () => {
    lab = await startLab(2);
    stateDir = mkdtempSync(join(tmpdir(), 'vmhub-test-adbpool-state-'));
    options = {
      devices: lab.devices.map((d) => ({ name: d.name, address: d.address })),
      state_dir: stateDir,
      adb: { port: lab.adbPort },
    };
    pool = adbPool.create(options, { identityPrefix: prefix, log: (_l, msg) => { logs.push(msg); } });
  });

  after(async () => {
    await lab?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  let first: MachineRef;
  let second: MachineRef;

  it('claims one device per lease, ready once sys.boot_completed=1, with a working channel', async () => {
    assert.deepEqual((await pool.status()).nodes?.map((n) => n.status), ['free', 'free']);
    first = await pool.create(lease());
    second = await pool.create(lease());
    assert.deepEqual([first.external_id, second.external_id].sort(), ['dev0', 'dev1']);
    const seen: string[] = [];
    await pool.ready(first, { ...stages(), stage: (n, s) => { seen.push(`${n}:${s}`); } });
    assert.deepEqual(seen, ['device:running', 'device:done', 'boot:running', 'boot:done']);
    const ch = await pool.channel!(first, template);
    try {
      const r = await ch.exec(['getprop', 'ro.serialno']);
      assert.equal(r.stdout.toString().trim(), `standin-test-${first.external_id}-${process.pid}`, 'the channel reaches the claimed device');
    } finally {
      await ch.close();
    }
    const again = await pool.create({ ...lease(), lease_id: first.identity.slice(prefix.length), identity: first.identity });
    assert.equal(again.external_id, first.external_id, 'create is idempotent per identity');
    assert.deepEqual((await pool.list()).map((m) => m.identity).sort(), [first.identity, second.identity].sort());
    assert.equal(await pool.state!(first), 'running');
  });

  it('refuses a third lease with HOST_CAPACITY, in this process and in another one', async () => {
    await assert.rejects(pool.create(lease()), (err: unknown) => VmhubError.is(err) && err.code === 'HOST_CAPACITY');
    // Another server process with the same state dir sees the claims in the directory.
    const script = `
      const { default: adbPool } = await import(${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)});
      const p = adbPool.create(${JSON.stringify(options)}, { identityPrefix: 'vmhub-other-', log: () => {} });
      const status = await p.status();
      let code = 'none';
      try { await p.create({ lease_id: 'x', identity: 'vmhub-other-x', template: ${JSON.stringify(template)}, signal: AbortSignal.timeout(30000) }); } catch (e) { code = e.code; }
      console.log(JSON.stringify({ code, nodes: status.nodes.map((n) => n.status) }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('..', import.meta.url).pathname });
    assert.deepEqual(JSON.parse(stdout.trim().split('\n').pop()!), { code: 'HOST_CAPACITY', nodes: ['claimed', 'claimed'] });
  });

  it('refuses to release a device to a forged identity, and refuses to reset another device at the address', async () => {
    assert.equal(await pool.destroy({ ...second, identity: `${prefix}${randomUUID()}` }), 'identity_mismatch');
    assert.equal(await pool.state!({ ...second, identity: `${prefix}${randomUUID()}` }), 'gone');
    // The device at dev1's address now says it is another device (another serial).
    const dev = lab.devices.find((d) => d.name === second.external_id)!;
    const props = join(dev.root, 'data/property/vmhub.prop');
    const saved = readFileSync(props, 'utf8');
    writeFileSync(props, saved.replace(/ro\.serialno=.*/, 'ro.serialno=someone-elses-phone'));
    try {
      assert.equal(await pool.destroy(second), 'identity_mismatch');
      assert.ok(logs.some((l) => l.includes('someone-elses-phone')), 'the refusal is logged with the serial it saw');
    } finally {
      writeFileSync(props, saved);
    }
    assert.ok((await pool.list()).some((m) => m.identity === second.identity), 'the claim is left in place');
  });

  it('reset on release: new packages uninstalled, apps stopped, /data/local/tmp/vmhub-* cleared; the device is free again', async () => {
    const dev = lab.devices.find((d) => d.name === first.external_id)!;
    // What a lease does on the device: install a package, launch apps, leave scratch files.
    const ch = await pool.channel!(first, template);
    try {
      await ch.putFile('/data/local/tmp/vmhub-x/app.apk', zipWithManifest('com.vmhub.extra'));
      for (const argv of [['pm', 'install', '/data/local/tmp/vmhub-x/app.apk'], ['am', 'start', '-W', '-n', 'com.vmhub.standin/.MainActivity'],
        ['monkey', '-p', 'com.vmhub.extra', '1']]) {
        const r = await ch.exec(argv, { timeoutMs: 30_000 });
        assert.equal(r.exit_code, 0, `${argv.join(' ')}: ${r.stderr}`);
      }
      await ch.putFile('/data/local/tmp/keep.txt', Buffer.from('not ours'));
    } finally {
      await ch.close();
    }
    assert.match(lab.adb(dev, 'shell', 'pm list packages -3'), /package:com\.vmhub\.extra/);
    assert.match(lab.adb(dev, 'shell', 'pidof com.vmhub.standin'), /^\d+/);

    assert.equal(await pool.destroy(first), 'destroyed');

    const packages = lab.adb(dev, 'shell', 'pm list packages -3');
    assert.doesNotMatch(packages, /com\.vmhub\.extra/, 'the package installed during the lease is uninstalled');
    assert.match(packages, /package:com\.vmhub\.standin/, 'packages there before the lease stay');
    assert.equal(lab.adb(dev, 'shell', 'pidof com.vmhub.standin com.vmhub.extra || echo none').trim(), 'none', 'the apps the lease launched are stopped');
    assert.equal(lab.adb(dev, 'shell', 'ls /data/local/tmp').trim(), 'keep.txt', '/data/local/tmp/vmhub-* is gone, other files stay');
    assert.match(lab.adb(dev, 'shell', 'dumpsys window windows'), /mCurrentFocus=Window\{\w+ u0 com\.android\.launcher3\//, 'the device is back on the home screen');
    assert.equal(await pool.destroy(first), 'already_gone');
    assert.equal(await pool.state!(first), 'gone');
    const next = await pool.create(lease());
    assert.equal(next.external_id, first.external_id, 'the released device is handed out again');
    first = next;
  });

  it('a device that went away: state "stopped", release waits for it (NODE_UNAVAILABLE), then succeeds', async () => {
    const dev = lab.devices.find((d) => d.name === second.external_id)!;
    await dev.stop();
    try {
      assert.equal(await pool.state!(second), 'stopped');
      assert.deepEqual((await pool.status()).nodes?.find((n) => n.id === dev.name)?.status, 'unreachable');
      await assert.rejects(pool.destroy(second), (err: unknown) => VmhubError.is(err) && err.code === 'NODE_UNAVAILABLE' && err.retryable);
      assert.ok((await pool.list()).some((m) => m.identity === second.identity), 'an unreset device stays claimed');
    } finally {
      await dev.start();
    }
    assert.equal(await pool.destroy(second), 'destroyed');
    assert.equal(await pool.destroy(first), 'destroyed');
    assert.deepEqual(await pool.list(), []);
  });

  it('reset.reboot: the device reboots at release and is free once sys.boot_completed=1 again', async () => {
    const rebooting = adbPool.create({ ...options, reset: { home: true, reboot: true, reboot_timeout_seconds: 30 } }, { identityPrefix: prefix, log: () => undefined });
    const m = await rebooting.create(lease());
    const dev = lab.devices.find((d) => d.name === m.external_id)!;
    // The device's reboot: boot_completed drops, and comes back a second later.
    writeFileSync(join(dev.root, 'system/bin/reboot'), '#!/bin/sh\necho x >> /data/local/tmp/reboots\nsetprop sys.boot_completed 0\n(sleep 1; setprop sys.boot_completed 1) >/dev/null 2>&1 &\n', { mode: 0o755 });
    assert.equal(lab.adb(dev, 'shell', 'command -v reboot').trim(), '/system/bin/reboot', 'the stand-in reboot, never the host\'s');
    assert.equal(await rebooting.destroy(m), 'destroyed');
    assert.equal(lab.adb(dev, 'shell', 'cat /data/local/tmp/reboots; getprop sys.boot_completed'), 'x\n1\n');
    assert.deepEqual(await rebooting.list(), []);
  });
});

/** A stand-in "APK": a zip (stored, no compression) holding vmhub-standin.json. */
function zipWithManifest(pkg: string): Buffer {
  const name = Buffer.from('vmhub-standin.json');
  const body = Buffer.from(JSON.stringify({ package: pkg, activity: '.Main', label: 'Extra' }));
  const crc = crc32(body);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(body.length, 18); local.writeUInt32LE(body.length, 22); local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(body.length, 20); central.writeUInt32LE(body.length, 24); central.writeUInt16LE(name.length, 28);
  const cdOffset = local.length + name.length + body.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(1, 8); end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12); end.writeUInt32LE(cdOffset, 16);
  return Buffer.concat([local, name, body, central, name, end]);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
