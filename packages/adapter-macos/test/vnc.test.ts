/**
 * Screen and input over RFB against real VNC servers from Debian: x11vnc over a live Xvfb desktop
 * (no auth, and VNC auth with the password from an env var), the same server reached as a
 * provider console (openVnc() with its password), and through the ARD stand-in (RFB 003.889,
 * type 30). Effects are read from the desktop: typed text lands in the focused xterm's file,
 * clicks move the X pointer and focus the window clicked.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { VmhubError, type ConsoleHandle, type OpenSession } from '@vmhub/core';
import macos, { resolveOptions } from '../src/index.ts';
import { MacosRuntime } from '../src/runtime.ts';
import { ARD_PASSWORD, ARD_USER, startArd } from './ard.ts';
import { callContext, leaseContext, type TestLease } from './context.ts';
import { until } from '@vmhub/test-kit';
import { quietly, startDesktop, type Desktop } from './desktop.ts';

const TEXT = 'Hello, World! ~`!@#$%^&*()_+{}|:"<>? ünï ✓ Привет 日本';
const pointer = (d: Desktop) => {
  const out = d.x(['xdotool', 'getmouselocation', '--shell']);
  return { x: Number(/^X=(\d+)/m.exec(out)?.[1]), y: Number(/^Y=(\d+)/m.exec(out)?.[1]) };
};
const activeTitle = (d: Desktop) => d.x(['xdotool', 'getactivewindow', 'getwindowname']).trim();

/** Open a session on `lease`, drive the desktop through it, and end the session and the lease. */
async function driveDesktop(d: Desktop, lease: TestLease): Promise<void> {
  const session = await macos.create({}).open(lease);
  try {
    await drive(d, session, lease);
  } finally {
    await session.dispose();
    await lease.close();
  }
}

async function drive(d: Desktop, session: OpenSession, lease: TestLease): Promise<void> {
  const ctx = () => callContext(lease);
  const size = await session.screenSize!(ctx());
  assert.deepEqual(size, { width: 1024, height: 768 });
  const shot = await session.screenshot!(ctx());
  assert.deepEqual([shot.format, shot.width, shot.height, shot.data.length], ['rgba', 1024, 768, 1024 * 768 * 4]);
  assert.ok(shot.data.some((b, i) => i % 4 !== 3 && b !== shot.data[0]), 'the frame is not blank');

  await session.click!(ctx(), { x: 300, y: 200, button: 'left', count: 1, modifiers: [] });
  assert.deepEqual(pointer(d), { x: 300, y: 200 });
  await session.type!(ctx(), { text: `${TEXT}\n` });
  await session.key!(ctx(), { keys: 'shift+a Return' });
  await until(() => (d.typed() === `${TEXT}\nA\n` ? true : undefined), 'typed text in the sink', 10_000).catch(() => undefined);
  assert.equal(d.typed(), `${TEXT}\nA\n`);

  // A click lands: clicking into another window focuses it (openbox focuses on click).
  d.spawnX(['xterm', '-T', 'vmhub-click-target', '-geometry', '40x10+700+500']);
  await until(quietly(() => (d.x(['wmctrl', '-l']).includes('vmhub-click-target') ? true : undefined)), 'second xterm', 15_000);
  d.x(['wmctrl', '-a', 'vmhub-sink']);
  await until(quietly(() => (activeTitle(d) === 'vmhub-sink' ? true : undefined)), 'sink focused', 15_000);
  await session.click!(ctx(), { x: 800, y: 560, button: 'left', count: 1, modifiers: [] });
  await until(quietly(() => (activeTitle(d) === 'vmhub-click-target' ? true : undefined)), 'the clicked window to take the focus', 5000);
  await session.drag!(ctx(), { from: { x: 100, y: 100 }, to: { x: 140, y: 130 }, button: 'left' });
  assert.deepEqual(pointer(d), { x: 140, y: 130 });
  await session.scroll!(ctx(), { x: 120, y: 110, direction: 'down', amount: 2 });
  assert.deepEqual(pointer(d), { x: 120, y: 110 });
  d.x(['wmctrl', '-c', 'vmhub-click-target']);
  d.x(['wmctrl', '-a', 'vmhub-sink']);
}

describe('macos: VNC against x11vnc over a live X desktop', () => {
  let desk: Desktop;
  before(async () => { desk = await startDesktop(); });
  after(async () => { await desk?.stop(); });

  it('no auth: screenshot, typed text (Shift, Unicode) in the file, keys, clicks land, drag, scroll', async () => {
    const lease = leaseContext({ 5900: desk.vncPort }, {});
    await driveDesktop(desk, lease);
  });

  it('the console path: openVnc() of the provider console, with its password', async () => {
    const pw = await startDesktop({ vncPassword: 'consolepw' });
    let opened = 0;
    const consoleHandle: ConsoleHandle = {
      kind: 'test', execute: async () => undefined, screendump: async () => { throw new Error('unused'); }, close: async () => undefined,
      openVnc: async () => {
        opened++;
        const socket = connect(pw.vncPort, '127.0.0.1');
        await new Promise((r) => socket.once('connect', r));
        return { socket, password: 'consolepw' };
      },
    };
    const lease = leaseContext({}, { vnc: 'console' }, async () => consoleHandle);
    const session = await macos.create({}).open(lease);
    try {
      await session.type!(callContext(lease), { text: 'via console ✓\n' });
      await until(() => (pw.typed() === 'via console ✓\n' ? true : undefined), 'console text', 10_000);
      assert.equal(opened, 1, 'one RFB connection for the session');
    } finally {
      await session.dispose();
      await lease.close();
      await pw.stop();
    }
  });

  it('VNC auth with the password from an env var; a wrong one is CAPABILITY_UNAVAILABLE naming the options', async () => {
    const pw = await startDesktop({ vncPassword: 'envpw123' });
    process.env.VMHUB_TEST_VNC_PW = 'envpw123';
    process.env.VMHUB_TEST_VNC_BAD = 'nope';
    const good = leaseContext({ 5900: pw.vncPort }, { vnc_password_env: 'VMHUB_TEST_VNC_PW' });
    const bad = leaseContext({ 5900: pw.vncPort }, { vnc_password_env: 'VMHUB_TEST_VNC_BAD' });
    const s1 = await macos.create({}).open(good);
    const s2 = await macos.create({}).open(bad);
    try {
      await s1.type!(callContext(good), { text: 'pw ok\n' });
      await until(() => (pw.typed() === 'pw ok\n' ? true : undefined), 'pw text', 10_000);
      await assert.rejects(s2.screenshot!(callContext(bad)), (e: unknown) => VmhubError.is(e) && e.code === 'CAPABILITY_UNAVAILABLE' && /vnc_password_env/.test(e.message));
    } finally {
      await s1.dispose(); await s2.dispose(); await good.close(); await bad.close();
      await pw.stop();
    }
  });
});

describe('macos: VNC through the ARD stand-in (RFB 003.889, security type 30)', () => {
  let desk: Desktop;
  let ard: { port: number; stop(): Promise<void> };
  before(async () => { desk = await startDesktop(); ard = await startArd(desk.vncPort); });
  after(async () => { await ard?.stop(); await desk?.stop(); });

  it('ARD credentials from the template: the whole screen-and-input drive works through it', async () => {
    process.env.VMHUB_TEST_ARD_PW = ARD_PASSWORD;
    const lease = leaseContext({ 5900: ard.port }, { vnc_username: ARD_USER, vnc_password_env: 'VMHUB_TEST_ARD_PW' });
    await driveDesktop(desk, lease);
  });

  it('the handshake really is Apple\'s: protocol 3.889, security ARD', async () => {
    const lease = leaseContext({ 5900: ard.port }, { vnc_username: ARD_USER, vnc_password: ARD_PASSWORD });
    // The session's runtime, as the adapter kit makes it at open() (instance options refined by the template's).
    const rt = new MacosRuntime(resolveOptions({ ...lease.template.adapter_options }), lease);
    try {
      const rfb = await rt.vnc.client();
      assert.deepEqual([rfb.protocol, rfb.security, rfb.width, rfb.height], ['3.889', 'ard', 1024, 768]);
    } finally {
      await rt.close();
      await lease.close();
    }
  });

  it('wrong ARD credentials are CAPABILITY_UNAVAILABLE, and probe() says why the screen cannot work', async () => {
    const lease = leaseContext({ 5900: ard.port }, { vnc_username: ARD_USER, vnc_password: 'wrong' });
    const session = await macos.create({}).open(lease);
    try {
      await assert.rejects(session.screenshot!(callContext(lease)), (e: unknown) => VmhubError.is(e) && e.code === 'CAPABILITY_UNAVAILABLE');
      const p = await session.probe!(callContext(lease));
      assert.match(p.screenshot ?? '', /VNC does not work/);
      assert.match(p.exec ?? '', /SSH/);
    } finally {
      await session.dispose();
      await lease.close();
    }
  });
});
