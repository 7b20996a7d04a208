/**
 * QEMU's built-in VNC server through ConsoleHandle.openVnc and @vmhub/rfb, on a real qemu booting
 * tiny-console (one boot for the file): the VNC picture matches a QMP screendump, keys typed over
 * VNC reach the guest (its shell writes to the serial port, serial.log on the host), the password
 * is per console handle and does not cut off earlier viewers, closed clients leave QEMU's client
 * list. Then QEMU's VNC without a password (security None) on a second, paused qemu.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { parsePpm, type ConsoleHandle, type MachineRef, type Provider, type TemplateConfig } from '@vmhub/core';
import { connectRfb, type RfbClient } from '@vmhub/rfb';
import plugin, { QmpClient } from '../src/index.ts';
import { qemuArgv } from '../src/qemu-argv.ts';
import { templateOptions } from '../src/options.ts';
import { vncOpener } from '../src/qemu-vnc.ts';
import { until, untilFileHas } from '@vmhub/test-kit';
import { testContext, testPrefix, tinyConsoleSetup } from './helpers.ts';

const rand = () => randomUUID().slice(0, 8).toUpperCase();

/** Pixels whose RGB differs by more than 16 in a channel, RFB RGBA against screendump RGB. */
function differing(rgba: Buffer, rgb: Buffer): number {
  let n = 0;
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) {
    if (Math.abs(rgba[i] - rgb[j]) > 16 || Math.abs(rgba[i + 1] - rgb[j + 1]) > 16 || Math.abs(rgba[i + 2] - rgb[j + 2]) > 16) n++;
  }
  return n;
}

describe('qemu: VNC console through @vmhub/rfb', { timeout: 400_000 }, () => {
  const prefix = testPrefix();
  const identity = `${prefix}${randomUUID()}`;
  let root: string;
  let template: TemplateConfig;
  let provider: Provider;
  let machine: MachineRef | undefined;
  let con: ConsoleHandle;
  let serialPath: string;
  const clients: RfbClient[] = [];

  const waitSerial = (text: string) => untilFileHas(serialPath, text, 30_000);
  const vncClients = async () => ((await con.execute('query-vnc')) as { clients: unknown[] }).clients.length;
  const screendumpPpm = async () => {
    const file = join(root, 'state', identity, `vnc-test-${rand()}.ppm`);
    await con.execute('screendump', { filename: file, format: 'ppm' });
    const ppm = parsePpm(await readFile(file));
    await rm(file, { force: true });
    return ppm;
  };

  before(async () => {
    const setup = await tinyConsoleSetup();
    root = setup.root;
    template = setup.template;
    provider = plugin.create({ state_dir: join(root, 'state') }, testContext(prefix));
    machine = await provider.create({ lease_id: identity.slice(prefix.length), identity, template, signal: AbortSignal.timeout(60_000) });
    await provider.ready(machine, { template, signal: AbortSignal.timeout(240_000), stage: () => {} });
    serialPath = join(root, 'state', identity, 'serial.log');
    con = await provider.console!(machine);
  });

  after(async () => {
    for (const c of clients) await c.close();
    await con?.close();
    if (machine) assert.equal(await provider.destroy(machine), 'destroyed');
    await rm(root, { recursive: true, force: true });
  });

  test('qemu: openVnc gives a unix stream and a password; VNC auth on RFB 3.8; the picture matches a QMP screendump', async () => {
    assert.ok(existsSync(join(root, 'state', identity, 'vnc.sock')));
    assert.equal(typeof con.openVnc, 'function');
    const { socket, password } = await con.openVnc!();
    assert.match(password ?? '', /^[A-Za-z0-9]{8}$/);
    await assert.rejects(connectRfb((await con.openVnc!()).socket), { code: 'AUTH_FAILED' }, 'a password is required');
    const rfb = await connectRfb(socket, { password });
    clients.push(rfb);
    assert.deepEqual([rfb.protocol, rfb.security, rfb.name], ['3.8', 'vnc', `QEMU (${identity})`]);
    const marker = `SHOT-${rand()}`;
    await rfb.typeText(`echo ${marker}\n`); // some text on the screen
    await new Promise((r) => setTimeout(r, 1500));
    const shot = await rfb.screenshot({ fresh: true });
    const ppm = await screendumpPpm();
    assert.deepEqual([shot.width, shot.height], [ppm.width, ppm.height]);
    const diff = differing(shot.data, ppm.pixels);
    assert.ok(diff < ppm.width * ppm.height * 0.01, `${diff} of ${ppm.width * ppm.height} pixels differ (the cursor may blink)`);
    let lit = 0;
    for (let i = 0; i < shot.data.length; i += 4) if (shot.data[i] + shot.data[i + 1] + shot.data[i + 2] > 200) lit++;
    assert.ok(lit > 500, `text on screen (${lit} lit pixels)`);
    assert.ok((rfb.stats().rects[16] ?? 0) > 0, `QEMU sent ZRLE (${JSON.stringify(rfb.stats().rects)})`);
  });

  test('qemu: keys typed over VNC reach the guest (serial log): letters, digits, shifted symbols, Return; ctrl+c', async () => {
    const rfb = clients[0];
    const payload = `VNC-${rand()} aZ09 !@#$%^&*()_+{}|:"<>?~ -=[]\\;,./`;
    await rfb.typeText(`echo '${payload}' > /dev/ttyS0\n`);
    await waitSerial(`${payload}\r\n`);
    const r = rand();
    await rfb.typeText(`echo CANCELLED-${r} > /dev/ttyS0`);
    await rfb.keyCombo('ctrl+c');
    await rfb.typeText(`echo AFTER-${r} > /dev/ttyS0\n`);
    await waitSerial(`AFTER-${r}`);
    assert.ok(!(await readFile(serialPath, 'latin1')).includes(`CANCELLED-${r}`), 'ctrl+c discarded the line');
  });

  test('qemu: one password per console handle; a new handle sets a new one without cutting off the first viewer', async () => {
    const a = await con.openVnc!();
    const b = await con.openVnc!();
    assert.equal(a.password, b.password, 'the same handle reuses its password');
    a.socket.destroy();
    b.socket.destroy();
    const second = await provider.console!(machine!).catch((err: Error) => err);
    // The console monitor serves one client at a time: open the second handle after closing the first.
    if (second instanceof Error) {
      await con.close();
      con = await provider.console!(machine!);
    } else {
      await con.close();
      con = second;
    }
    const c = await con.openVnc!();
    assert.notEqual(c.password, a.password, 'a new handle chose a new password');
    const other = await connectRfb(c.socket, { password: c.password });
    clients.push(other);
    assert.equal(clients[0].closed, false, 'the first viewer is still connected');
    await clients[0].screenshot({ fresh: true });
  });

  test('qemu: closed RFB clients leave QEMU\'s client list (no leaked streams)', async () => {
    assert.equal(await vncClients(), clients.length);
    for (const c of clients.splice(0)) await c.close();
    await until(async () => (await vncClients()) === 0, 'QEMU to drop the VNC clients', 10_000);
  });
});

describe('qemu: VNC without a password', { timeout: 60_000 }, () => {
  test('qemu: vnc "none" → security None; the console opener hands out no password', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vmhub-qemu-vnc-'));
    const argv = qemuArgv({ identity: `vmhub-vnc-${rand()}`, dir, template: { id: 't', provider: 'qemu', adapter: 'console', os: 'linux', golden: '/nonexistent' }, options: templateOptions({}), accel: 'tcg', machine: 'q35', defaultMemoryMb: 64, vnc: 'none' });
    const child = spawn('qemu-system-x86_64', [...argv, '-S'], { stdio: 'ignore' }); // paused: no guest needed for the VGA framebuffer
    let qmp: QmpClient | undefined;
    try {
      await until(async () => existsSync(join(dir, 'vnc.sock')) && existsSync(join(dir, 'console.sock')), 'qemu sockets', 20_000);
      qmp = await QmpClient.connect(join(dir, 'console.sock'), { protocol: 'qmp', timeoutMs: 10_000, label: 'vnc-none' });
      const open = vncOpener(dir, 'vnc-none', (cmd, args) => qmp!.execute(cmd, args, 10_000));
      const { socket, password } = await open();
      assert.equal(password, undefined);
      const rfb = await connectRfb(socket as Duplex);
      assert.deepEqual([rfb.protocol, rfb.security], ['3.8', 'none']);
      const shot = await rfb.screenshot();
      assert.ok(shot.width > 0 && shot.height > 0 && shot.data.length === shot.width * shot.height * 4);
      await rfb.close();
    } finally {
      qmp?.close();
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
