/**
 * Another local user cannot reach a lease's Android device (docs/security.md, "Guest port
 * forwards"). The device is the REAL adbd, reached the way the docker provider reaches it: a
 * GuestPorts forward over a guest-port opener, attached to vmhub's private adb server (a unix
 * socket in a 0700 directory). The attacker is the local user `nobody` with the real `adb`:
 * - its own adb server told to `adb connect` the forward (the finding: it used to get uid 0 in
 *   the device) is refused;
 * - using vmhub's adb server directly (`adb -L localfilesystem:<vmhub's socket> shell`) is refused;
 * while vmhub's channel runs commands as before. A template's `forward_tcp` opt-in is shown for
 * contrast: there nobody's adb server does reach the device.
 * (The fixture's adbd itself listens on TCP: it stands for the guest, not for anything vmhub opens.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GuestPorts, VmhubError, type GuestEndpoint } from '@vmhub/core';
import { ensureAdbServer, openAdbChannelOver, type AdbChannel } from '../src/index.ts';
import { ADB, adbMissing, startAdbd, type Adbd } from '@vmhub/test-kit';
import { otherUserMissing, runAsNobody } from './adbd.ts';

const skip = adbMissing() ?? otherUserMissing();
const NOBODY = 65534;

/** `adb connect` spelling of a forward. */
const spec = (ep: GuestEndpoint): string => (ep.path !== undefined ? `localfilesystem:${ep.path}` : `${ep.host}:${ep.port}`);

describe('channel-adb: another local user and an Android lease', { skip }, () => {
  let adbd: Adbd;
  let work: string;
  let socket: string;
  let nobodyHome: string;
  let nobodyServer: string;
  let ch: AdbChannel;
  let forward: GuestEndpoint | undefined;

  /** nobody's own adb server (its own unix socket in its home) told to attach `ep`, then `shell id -u`. */
  async function nobodyAttaches(ep: GuestEndpoint): Promise<{ connect: string; shell: string }> {
    const adb = [ADB, '-L', `localfilesystem:${nobodyServer}`];
    const c = await runAsNobody([...adb, 'connect', spec(ep)], nobodyHome);
    const s = await runAsNobody([...adb, '-s', spec(ep), 'shell', 'id', '-u'], nobodyHome);
    return { connect: c.out.trim(), shell: s.code === 0 ? s.out.trim() : `exit ${s.code}: ${s.out.trim()}` };
  }

  before(async () => {
    adbd = await startAdbd();
    work = mkdtempSync(join(tmpdir(), 'vmhub-test-adb-private-'));
    socket = join(work, 'server', 'adb.sock');
    nobodyHome = join(work, 'nobody');
    mkdirSync(nobodyHome);
    chownSync(nobodyHome, NOBODY, NOBODY);
    chmodSync(work, 0o755); // nobody must reach its own home; vmhub's socket directory stays 0700
    nobodyServer = join(nobodyHome, 'adb.sock');
    ch = await openAdbChannelOver(async (port) => {
      assert.equal(port, 5555);
      return connect({ host: '127.0.0.1', port: adbd.port });
    }, 5555, { adb: { socket }, home: '/' });
    forward = ch.serial.startsWith('localfilesystem:') ? { path: ch.serial.slice('localfilesystem:'.length) } : undefined;
  });

  after(async () => {
    await ch?.close();
    await runAsNobody([ADB, '-L', `localfilesystem:${nobodyServer}`, 'kill-server'], nobodyHome);
    try { execFileSync(ADB, ['-L', `localfilesystem:${socket}`, 'kill-server'], { stdio: 'ignore' }); } catch { /* gone */ }
    await adbd?.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(join(tmpdir(), `adb.${NOBODY}.log`), { force: true }); // the log of nobody's adb servers
  });

  it('vmhub\'s adb server is a unix socket in a 0700 directory, and the device is attached through a unix-socket forward', async () => {
    const dir = statSync(dirname(socket));
    assert.equal(dir.mode & 0o777, 0o700);
    assert.equal(dir.uid, process.getuid!());
    assert.ok(statSync(socket).isSocket(), 'the server listens on the socket');
    assert.ok(forward, `the device is attached through a unix socket, not ${ch.serial}`);
    assert.equal(statSync(dirname(forward.path!)).mode & 0o777, 0o700, 'the forward\'s directory is 0700');
    const r = await ch.exec(['id', '-u']);
    assert.equal(r.stdout.toString().trim(), '0', 'vmhub reaches the device (adbd runs as root here)');
  });

  it('nobody\'s own adb server cannot attach the forward (it used to get uid 0 in the device)', async (t) => {
    const got = await nobodyAttaches(forward!);
    t.diagnostic(`nobody: adb connect → ${JSON.stringify(got.connect)}; shell → ${JSON.stringify(got.shell)}`);
    assert.match(got.connect, /could not connect|failed to connect|Permission denied/i);
    assert.doesNotMatch(got.shell, /^0$/m, 'no shell on the device');
  });

  it('nobody cannot use vmhub\'s adb server (it would open a shell on every attached device)', async (t) => {
    const devices = await runAsNobody([ADB, '-L', `localfilesystem:${socket}`, 'devices'], nobodyHome, 10_000);
    const shell = await runAsNobody([ADB, '-L', `localfilesystem:${socket}`, '-s', ch.serial, 'shell', 'id', '-u'], nobodyHome, 10_000);
    t.diagnostic(`nobody: devices → exit ${devices.code}; shell → exit ${shell.code}: ${shell.out.trim().slice(0, 200)}`);
    assert.doesNotMatch(devices.out, new RegExp(ch.serial.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')), 'the device is not listed to nobody');
    assert.notEqual(shell.code, 0);
    assert.doesNotMatch(shell.out, /^0$/m);
  });

  it('contrast: with a template\'s forward_tcp the forward is TCP on 127.0.0.1 and nobody\'s adb server gets a shell', async (t) => {
    const ports = new GuestPorts(async () => connect({ host: '127.0.0.1', port: adbd.port }), { tcp: true });
    try {
      const ep = await ports.forward(5555);
      const got = await nobodyAttaches(ep);
      t.diagnostic(`nobody over forward_tcp: adb connect → ${JSON.stringify(got.connect)}; shell → ${JSON.stringify(got.shell)}`);
      assert.equal(got.shell, '0', 'the opt-in is what it says: any local user reaches the device');
      await runAsNobody([ADB, '-L', `localfilesystem:${nobodyServer}`, 'disconnect', spec(ep)], nobodyHome);
    } finally {
      await ports.close();
    }
  });

  it('a private-server directory that is not the vmhub user\'s own 0700 directory is refused, not used', async () => {
    const loose = join(work, 'loose');
    mkdirSync(loose, { mode: 0o755 });
    chmodSync(loose, 0o755);
    const foreign = join(work, 'foreign');
    mkdirSync(foreign, { mode: 0o700 });
    chownSync(foreign, NOBODY, NOBODY);
    for (const dir of [loose, foreign]) {
      await assert.rejects(ensureAdbServer(join(dir, 'adb.sock')), (e: unknown) => VmhubError.is(e) && e.code === 'INTERNAL' && /not a directory of uid 0 with mode 0700/.test(e.message) && /remove/.test(e.hint ?? ''));
    }
  });
});
