/**
 * The adapter through the REAL adb path (adb server + bookworm-backports adbd, @vmhub/channel-adb
 * over a GuestPorts forward) against fake Android tools (fake-device.ts): what reaches the
 * device's tools argv-exact, the %s rule, the clipboard route, retries, typed errors. Effects on
 * a real display are the android-standin conformance test's job.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { GuestPorts, type AdapterContext, type LeaseContext, type OpenSession } from '@vmhub/core';
import { openAdbChannel, type AdbChannel } from '@vmhub/channel-adb';
import { createAndroidAdapter } from '../src/index.ts';
import { adbMissing, startAdbServer } from '@vmhub/test-kit';
import { rejectsWith } from '@vmhub/test-kit/errors';
import { solidPng, startFakeDevice, type FakeDevice } from './fake-device.ts';
import { DUMPSYS_WINDOWS, INPUT_USAGE_13, INPUT_USAGE_12, UI_XML, VIEWPORT_ROT0 } from './samples.ts';

const skip = adbMissing();

describe('adapter-android over real adb, fake tools', { skip }, () => {
  let dev: FakeDevice;
  let server: { port: number; stop(): void };
  let ports: GuestPorts;
  let channel: AdbChannel;
  let lease: LeaseContext;
  let session: OpenSession;
  const ctx = (ms = 60_000): AdapterContext => ({ ...lease, signal: AbortSignal.timeout(ms) });
  const since = (n: number) => dev.calls().slice(n);

  before(async () => {
    dev = await startFakeDevice({
      'screen.png': solidPng(1080, 2400, [250, 250, 250]),
      'wm-size.txt': 'Physical size: 1080x2400\n',
      'dumpsys-input.txt': VIEWPORT_ROT0,
      'dumpsys-window.txt': DUMPSYS_WINDOWS,
      'input-usage.txt': INPUT_USAGE_13,
      'ui.xml': UI_XML,
      'clipper-installed': '',
    });
    server = await startAdbServer();
    ports = new GuestPorts(async () => connect({ host: '127.0.0.1', port: dev.port }));
    channel = await openAdbChannel({ address: await ports.forward(5555), adb: { port: server.port }, home: dev.home, onClose: () => ports.close() });
    lease = {
      lease_id: 'test-android-fake',
      machine: { identity: 'vmhub-test-android', external_id: 'fake' },
      template: { id: 'android-fake', provider: 'host', adapter: 'android', os: 'android', golden: 'fake', adapter_options: { scratch_dir: dev.home } },
      channel: async () => channel,
      console: async () => { throw new Error('no console'); },
      connect: async () => { throw new Error('no ports'); },
      forward: async () => { throw new Error('no ports'); },
    };
    session = await createAndroidAdapter().open(lease);
  });

  after(async () => {
    await session?.dispose();
    await channel?.close();
    server?.stop();
    await dev?.stop();
  });

  it('screenshot is the PNG screencap printed, byte-exact, sized from its header', async () => {
    const shot = await session.screenshot!(ctx());
    assert.equal(shot.format, 'png');
    assert.deepEqual([shot.width, shot.height], [1080, 2400]);
    assert.ok(shot.data.equals(solidPng(1080, 2400, [250, 250, 250])));
  });

  it('screenSize from wm size, turned by the viewport rotation', async () => {
    assert.deepEqual(await session.screenSize!(ctx()), { width: 1080, height: 2400 });
    dev.write('wm-size.txt', 'Physical size: 1080x2400\nOverride size: 720x1600\n');
    dev.write('dumpsys-input.txt', VIEWPORT_ROT0.replace('orientation=0', 'orientation=1'));
    const fresh = await createAndroidAdapter().open(lease);
    assert.deepEqual(await fresh.screenSize!(ctx()), { width: 1600, height: 720 });
    await fresh.dispose();
  });

  it('click: tap, double tap, long press; middle button and modifiers refused', async () => {
    const n = dev.calls().length;
    await session.click!(ctx(), { x: 100.4, y: 200.6, button: 'left', count: 1, modifiers: [] });
    await session.click!(ctx(), { x: 10, y: 20, button: 'left', count: 2, modifiers: [] });
    await session.click!(ctx(), { x: 30, y: 40, button: 'right', count: 1, modifiers: [] });
    assert.deepEqual(since(n), [
      ['input', 'tap', '100', '201'],
      ['input', 'tap', '10', '20'], ['input', 'tap', '10', '20'],
      ['input', 'swipe', '30', '40', '30', '40', '600'],
    ]);
    await rejectsWith(session.click!(ctx(), { x: 1, y: 1, button: 'middle', count: 1, modifiers: [] }), 'INVALID_REQUEST', /middle/);
    await rejectsWith(session.click!(ctx(), { x: 1, y: 1, button: 'left', count: 1, modifiers: ['ctrl'] }), 'INVALID_REQUEST', /modifier/);
  });

  it('drag and scroll are swipes', async () => {
    const fresh = await createAndroidAdapter().open(lease);
    dev.write('wm-size.txt', 'Physical size: 1080x2400\n');
    dev.write('dumpsys-input.txt', VIEWPORT_ROT0);
    const n = dev.calls().length;
    await fresh.drag!(ctx(), { from: { x: 100, y: 100 }, to: { x: 500, y: 900 }, button: 'left' });
    await fresh.scroll!(ctx(), { x: 540, y: 1200, direction: 'down', amount: 3 });
    assert.deepEqual(since(n).filter((c) => c[0] === 'input'), [
      ['input', 'swipe', '100', '100', '500', '900', '800'],
      ['input', 'swipe', '540', '1200', '540', '480', '300'],
    ]);
    await fresh.dispose();
  });

  it('type: shell metacharacters and % arrive literally; Unicode and newlines in order', async () => {
    const before = dev.typed();
    const text = `it's $HOME; rm -rf / && echo "x" | cat > y \`id\` 100% sure %s ~!#*?{}[]\\`;
    await session.type!(ctx(), { text });
    assert.equal(dev.typed().slice(before.length), text);
    const mid = dev.typed();
    await session.type!(ctx(), { text: 'Grüße, 世界 ✓\nsecond line\tend 😀' });
    assert.equal(dev.typed().slice(mid.length), 'Grüße, 世界 ✓\nsecond line\tend 😀');
    assert.equal(dev.clipboard(), 'end 😀');
  });

  it('paste: the whole text through the clipboard, trailing newlines kept', async () => {
    const before = dev.typed();
    await session.paste!(ctx(), { text: 'line 1\nligne 2 ✓\n\n' });
    assert.equal(dev.typed().slice(before.length), 'line 1\nligne 2 ✓\n\n');
    const last = dev.calls().filter((c) => c[0] === 'am').at(-1)!;
    assert.deepEqual(last, ['am', 'broadcast', '-a', 'clipper.set', '-e', 'text', 'line 1\nligne 2 ✓\n\n']);
  });

  it('keys: keyevent for single keys, keycombination for chords; unknown names refused before sending', async () => {
    const n = dev.calls().length;
    await session.key!(ctx(), { keys: 'home back ctrl+a Delete' });
    // (The first chord made the probe run `input` bare, to read its usage.)
    assert.deepEqual(since(n).filter((c) => c[0] === 'input' && c.length > 1), [
      ['input', 'keyevent', 'KEYCODE_HOME', 'KEYCODE_BACK'],
      ['input', 'keycombination', 'KEYCODE_CTRL_LEFT', 'KEYCODE_A'],
      ['input', 'keyevent', 'KEYCODE_FORWARD_DEL'],
    ]);
    const m = dev.calls().length;
    await rejectsWith(session.key!(ctx(), { keys: 'home warp9' }), 'INVALID_REQUEST', /unknown key name "warp9"/);
    assert.equal(dev.calls().length, m, 'nothing sent');
  });

  it('a device without keycombination: chords are CAPABILITY_UNAVAILABLE naming them; single keys work', async () => {
    dev.write('input-usage.txt', INPUT_USAGE_12);
    const old = await createAndroidAdapter().open(lease);
    const err = await rejectsWith(old.key!(ctx(), { keys: 'ctrl+c' }), 'CAPABILITY_UNAVAILABLE', /ctrl_left\+keycode_a|KEYCODE_CTRL_LEFT\+KEYCODE_C/i);
    assert.deepEqual(err.details?.unsupported, ['KEYCODE_CTRL_LEFT+KEYCODE_C']);
    await old.key!(ctx(), { keys: 'enter' });
    await old.dispose();
    dev.write('input-usage.txt', INPUT_USAGE_13);
  });

  it('no clipboard helper: Unicode typing and paste are CAPABILITY_UNAVAILABLE, probe says so; ASCII still types', async () => {
    const { rmSync } = await import('node:fs');
    rmSync(`${dev.state}/clipper-installed`);
    const bare = await createAndroidAdapter().open(lease);
    await rejectsWith(bare.type!(ctx(), { text: 'ünï' }), 'CAPABILITY_UNAVAILABLE', /Clipper/);
    await rejectsWith(bare.paste!(ctx(), { text: 'x' }), 'CAPABILITY_UNAVAILABLE', /clipboard helper/);
    const before = dev.typed();
    await bare.type!(ctx(), { text: 'plain ascii' });
    assert.equal(dev.typed().slice(before.length), 'plain ascii');
    const probe = await bare.probe!(ctx());
    assert.match(probe.paste ?? '', /Clipper/);
    assert.equal(probe.type, undefined);
    await bare.dispose();
    dev.write('clipper-installed', '');
  });

  it('probe: all tools present → nothing missing; a missing tool is named', async () => {
    assert.deepEqual(await session.probe!(ctx()), {});
    const { renameSync } = await import('node:fs');
    const bin = `${dev.state}/../bin`;
    renameSync(`${bin}/uiautomator`, `${bin}/uiautomator.off`);
    try {
      const fresh = await createAndroidAdapter().open(lease);
      const p = await fresh.probe!(ctx());
      assert.deepEqual(Object.keys(p), ['inspect']);
      assert.match(p.inspect!, /no uiautomator/);
      await rejectsWith(fresh.inspect!(ctx(), { max_depth: 5, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 }), 'CAPABILITY_UNAVAILABLE', /uiautomator not found/);
      await fresh.dispose();
    } finally {
      renameSync(`${bin}/uiautomator.off`, `${bin}/uiautomator`);
    }
  });

  it('list windows: visible ones with bounds, the focused one marked', async () => {
    const windows = await session.listWindows!(ctx());
    assert.deepEqual(windows.map((w) => w.id), ['9ef7b58', '3a9bb36']);
    assert.deepEqual(windows[1], { id: '3a9bb36', title: 'com.example.notes/com.example.notes.MainActivity', class: 'com.example.notes', x: 0, y: 0, width: 1080, height: 2400, focused: true, visible: true });
    assert.equal(windows[0]!.focused, false);
  });

  it('launch: monkey for a package, am start -W for a component; window and pid reported', async () => {
    const n = dev.calls().length;
    const r = await session.launch!(ctx(), { app: 'com.example.notes', args: [], wait_seconds: 5 });
    assert.equal(r.pid, 4242);
    assert.equal(r.window?.id, '3a9bb36');
    await session.launch!(ctx(), { app: 'com.example.notes/.MainActivity', args: ['-a', 'android.intent.action.VIEW'], wait_seconds: 0 });
    const launched = since(n).filter((c) => c[0] === 'monkey' || c[0] === 'am');
    assert.deepEqual(launched, [
      ['monkey', '-p', 'com.example.notes', '-c', 'android.intent.category.LAUNCHER', '1'],
      ['am', 'start', '-W', '-a', 'android.intent.action.VIEW', '-n', 'com.example.notes/.MainActivity'],
    ]);
    await rejectsWith(session.launch!(ctx(), { app: 'com.example.absent', args: [], wait_seconds: 0 }), 'NOT_FOUND', /No activities found/);
    await rejectsWith(session.launch!(ctx(), { app: 'com.example.notes/.Nope', args: [], wait_seconds: 0 }), 'NOT_FOUND', /does not exist/);
    await rejectsWith(session.launch!(ctx(), { app: 'rm -rf /', args: [], wait_seconds: 0 }), 'INVALID_REQUEST');
  });

  it('focus: am start with the launcher intent; close: am force-stop; system UI refused', async () => {
    const n = dev.calls().length;
    const w = await session.focus!(ctx(), { window: '3a9bb36' });
    assert.equal(w.focused, true);
    assert.deepEqual((await session.close!(ctx(), { window: 'com.example.notes/com.example.notes.MainActivity' })).window_id, '3a9bb36');
    assert.deepEqual(since(n).filter((c) => c[0] === 'am'), [
      ['am', 'start', '-a', 'android.intent.action.MAIN', '-c', 'android.intent.category.LAUNCHER', '-n', 'com.example.notes/com.example.notes.MainActivity'],
      ['am', 'force-stop', 'com.example.notes'],
    ]);
    await rejectsWith(session.close!(ctx(), { window: 'StatusBar' }), 'INVALID_REQUEST', /system UI/);
    await rejectsWith(session.focus!(ctx(), { window: '9ef7b58' }), 'INVALID_REQUEST', /system UI/);
    await rejectsWith(session.focus!(ctx(), { window: 'nope' }), 'NOT_FOUND', /windows: 9ef7b58 "StatusBar"/);
  });

  it('inspect: retried past "null root node", parsed with bounds; the scratch file is removed', async () => {
    dev.write('ui-failures', '2');
    dev.write('ui-count', '0');
    const { tree, source } = await session.inspect!(ctx(), { max_depth: 10, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 });
    assert.equal(source, 'uiautomator');
    const button = tree.children![0]!.children![0]!;
    assert.deepEqual(button, { role: 'Button', name: 'Tap me', x: 40, y: 200, width: 1000, height: 140, states: ['clickable', 'focusable'] });
    assert.equal(dev.calls().filter((c) => c[0] === 'uiautomator').length >= 3, true);
    const { readdirSync } = await import('node:fs');
    assert.deepEqual(readdirSync(dev.home).filter((f) => f.startsWith('vmhub-ui-')), []);
    dev.write('ui-failures', '99');
    dev.write('ui-count', '0');
    await rejectsWith(session.inspect!(ctx(), { max_depth: 10, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 }), 'INTERNAL', /null root node/);
    dev.write('ui-failures', '0');
  });

  it('files and exec through the channel', async () => {
    const path = `${dev.home}/f.bin`;
    await session.putFile!(ctx(), { path, data: Buffer.from([0, 1, 2, 255]), mode: 0o600 });
    assert.deepEqual([...(await session.getFile!(ctx(), { path, max_bytes: 100 }))], [0, 1, 2, 255]);
    await rejectsWith(session.getFile!(ctx(), { path: `${dev.home}/absent`, max_bytes: 100 }), 'NOT_FOUND');
    const r = await session.exec!(ctx(), { argv: ['sh', '-c', 'cat; echo e >&2; exit 4'], stdin: 'in', timeout_ms: 5000, max_output_bytes: 1000 });
    assert.deepEqual([r.exit_code, r.stdout.toString(), r.stderr.toString()], [4, 'in', 'e\n']);
  });
});
