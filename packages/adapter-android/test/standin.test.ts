/**
 * Effects on the android-standin golden (a real container, its real adbd, the adb channel through
 * provider-docker's guest ports): a tap changes the next screencap and the app's state, typed
 * Unicode and pasted text reach the app's text field, inspect sees the app's widgets, launch /
 * focus / close move the stand-in's task stack, a timed-out exec is killed inside the container,
 * and a device whose adbd dies mid-call gives a typed error. Needs the golden
 * (`vmhub-server golden build android-standin`); without it the suite fails with the reason.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { VmhubError, type AdapterContext, type GuestChannel, type OpenSession } from '@vmhub/core';
import type { AdapterTarget } from '@vmhub/conformance';
import { createAndroidAdapter } from '../src/index.ts';
import { decodeRegion, shapePixels, shapeScreenshot } from '@vmhub/core/screenshot';
import { decodePng, pixel } from './png-decode.ts';
import { until } from '@vmhub/test-kit';
import { APP, appState, standinTarget } from './standin.ts';

const hex = (rgb: [number, number, number]) => `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`;

describe('android on the android-standin golden (provider-docker, adb channel)', { timeout: 600_000 }, () => {
  let t: AdapterTarget & { channel: GuestChannel };
  let session: OpenSession;
  const ctx = (ms = 60_000): AdapterContext => ({ ...t.context, signal: AbortSignal.timeout(ms) });

  before(async () => {
    t = await standinTarget();
    session = await createAndroidAdapter().open(t.context);
  });
  after(async () => {
    await session?.dispose();
    await t?.dispose();
  });

  it('probe: the stand-in lacks nothing the adapter needs', async () => {
    assert.deepEqual(await session.probe!(ctx()), {});
  });

  it('screenshot: a 1080×2400 PNG of the display; screenSize agrees', async () => {
    const shot = await session.screenshot!(ctx());
    assert.equal(shot.format, 'png');
    assert.deepEqual([shot.width, shot.height], [1080, 2400]);
    assert.deepEqual(await session.screenSize!(ctx()), { width: 1080, height: 2400 });
  });

  it('screenshot: the device\'s own capture; core hands it through as is when it fits the box, shapes it otherwise', async () => {
    const shot = await session.screenshot!(ctx());
    const device = (await t.channel.exec(['screencap', '-p'], { maxOutputBytes: 64 << 20 })).stdout;
    const [mine, theirs] = [decodePng(shot.data), decodePng(device)];
    // Rows away from the text field (its cursor blinks between the two captures) are identical.
    const rows = (img: typeof mine, from: number, to: number) => img.data.subarray(from * img.width * img.channels, to * img.width * img.channels);
    for (const [from, to] of [[0, 300], [700, 2400]]) assert.ok(rows(mine, from, to).equals(rows(theirs, from, to)), `rows ${from}–${to} differ from screencap -p`);
    const through = await shapeScreenshot(shot, { maxWidth: 1080, maxHeight: 2400 });
    assert.equal(through.data, shot.data, 'fits the box: the very bytes the device sent');
    assert.deepEqual([through.width, through.height, through.scale], [1080, 2400, 1]);
    const reencoded = await shapePixels(await decodeRegion(shot), { maxWidth: 1080, maxHeight: 2400 });
    assert.notEqual(reencoded.data, shot.data);
    assert.ok(decodePng(reencoded.data).data.equals(mine.data), 'decoded and re-encoded: the same pixels');
    const fitted = await shapeScreenshot(shot); // the default 1280×800 box
    assert.deepEqual([fitted.width, fitted.height, fitted.scale], [360, 800, 1 / 3]);
  });

  it('a tap on the button changes the next screencap and the app', async () => {
    const tree = (await session.inspect!(ctx(), { max_depth: 10, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 })).tree;
    const find = (n: typeof tree): typeof tree | undefined => (n.role === 'Button' ? n : n.children?.map(find).find(Boolean));
    const button = find(tree);
    assert.ok(button?.width && button.height, `no Button in ${JSON.stringify(tree)}`);
    const cx = button.x! + Math.floor(button.width / 2);
    const cy = button.y! + Math.floor(button.height / 2);
    const before = await appState(t.channel);
    const beforePx = pixel(decodePng((await session.screenshot!(ctx())).data), button.x! + 10, cy);
    await session.click!(ctx(), { x: cx, y: cy, button: 'left', count: 1, modifiers: [] });
    const after = await until(async () => {
      const s = await appState(t.channel);
      return s && s.taps === (before?.taps ?? 0) + 1 ? s : undefined;
    }, 'the tap in the app', 10_000);
    assert.equal(after.button_text, `Tapped ${after.taps}`);
    const afterPx = pixel(decodePng((await session.screenshot!(ctx())).data), button.x! + 10, cy);
    assert.notDeepEqual(afterPx, beforePx, 'the button looks the same after the tap');
    assert.equal(hex(afterPx), after.button_color.toLowerCase());
    // A double tap is two taps.
    await session.click!(ctx(), { x: cx, y: cy, button: 'left', count: 2, modifiers: [] });
    await until(async () => ((await appState(t.channel))?.taps === after.taps + 2 ? true : undefined), 'the double tap', 10_000);
    const named = find((await session.inspect!(ctx(), { max_depth: 10, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 })).tree);
    assert.equal(named?.name, `Tapped ${after.taps + 2}`);
  });

  it('typed text reaches the field exactly: ASCII metacharacters, %s, Unicode, in order', async () => {
    const text = `it's $HOME; a && b | c > d %s 100% — Grüße 世界 ✓ 😀`;
    const start = (await appState(t.channel))?.text ?? '';
    await session.type!(ctx(), { text });
    const got = await until(async () => {
      const s = (await appState(t.channel))?.text ?? '';
      return s.length >= start.length + [...text].length - 1 ? s : undefined;
    }, 'the typed text', 15_000);
    assert.equal(got, start + text);
  });

  it('paste puts the text in the field; backspace deletes one character', async () => {
    const start = (await appState(t.channel))?.text ?? '';
    await session.paste!(ctx(), { text: ' ünïcødé 日本' });
    await until(async () => ((await appState(t.channel))?.text === `${start} ünïcødé 日本` ? true : undefined), 'the pasted text', 10_000);
    await session.key!(ctx(), { keys: 'BackSpace' });
    await until(async () => ((await appState(t.channel))?.text === `${start} ünïcødé 日` ? true : undefined), 'the backspace', 10_000);
  });

  it('an unknown key name is INVALID_REQUEST and sends nothing', async () => {
    const before = (await appState(t.channel))?.text;
    await assert.rejects(session.key!(ctx(), { keys: 'ctrl+NoSuchKey' }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    assert.equal((await appState(t.channel))?.text, before);
  });

  it('list windows, launch, focus, close move the task stack', async () => {
    const windows = await session.listWindows!(ctx());
    const app = windows.find((w) => w.class === APP);
    assert.ok(app?.focused, `the app is not focused: ${JSON.stringify(windows)}`);
    const launched = await session.launch!(ctx(), { app: 'ca.zgrs.clipper', args: [], wait_seconds: 15 });
    assert.ok(launched.window, 'no window reported for the launched app');
    assert.ok(typeof launched.pid === 'number');
    const top = (await session.listWindows!(ctx())).find((w) => w.focused);
    assert.equal(top?.class, 'ca.zgrs.clipper');
    const back = await session.focus!(ctx(), { window: app.id });
    assert.equal(back.focused, true);
    assert.equal((await session.close!(ctx(), { window: launched.window.id })).window_id, launched.window.id);
    await until(async () => ((await session.listWindows!(ctx())).some((w) => w.class === 'ca.zgrs.clipper') ? undefined : true), 'clipper gone', 10_000);
    await assert.rejects(session.launch!(ctx(), { app: 'com.example.absent', args: [], wait_seconds: 0 }), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND');
  });

  it('files: bytes and mode through adb sync; NOT_FOUND', async () => {
    const data = randomBytes(256 * 1024);
    const path = '/data/local/tmp/vmhub-test.bin';
    await session.putFile!(ctx(), { path, data, mode: 0o640 });
    assert.ok((await session.getFile!(ctx(), { path, max_bytes: 1 << 20 })).equals(data));
    const mode = await session.exec!(ctx(), { argv: ['stat', '-c', '%a', path], timeout_ms: 5000, max_output_bytes: 100 });
    assert.equal(mode.stdout.toString().trim(), '640');
    await assert.rejects(session.getFile!(ctx(), { path: '/data/local/tmp/absent', max_bytes: 10 }), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND');
  });

  it('exec: exit code, stderr; a timed-out command is killed inside the container', async () => {
    const r = await session.exec!(ctx(), { argv: ['sh', '-c', 'echo out; echo err >&2; exit 3'], timeout_ms: 5000, max_output_bytes: 1000 });
    assert.deepEqual([r.exit_code, r.stdout.toString(), r.stderr.toString()], [3, 'out\n', 'err\n']);
    const tag = `vmhub-kill-${randomBytes(3).toString('hex')}`;
    const slow = await session.exec!(ctx(), { argv: ['sh', '-c', `sleep 345 & sleep 346; : ${tag}`], timeout_ms: 800, max_output_bytes: 1000 });
    assert.deepEqual([slow.exit_code, slow.timed_out], [null, true]);
    await until(async () => {
      const ps = await t.channel.exec(['ps', '-eo', 'args'], { timeoutMs: 5000 });
      const left = ps.stdout.toString().split('\n').filter((l) => l.includes(tag) || /^sleep 34[56]/.test(l));
      return left.length === 0 ? true : undefined;
    }, 'the killed command gone', 10_000);
  });

  it('vm_exec {shell} runs in the device\'s /system/bin/sh, not /bin/sh (which a device lacks)', async () => {
    const argv = session.shellArgv!('echo "$0"; echo "a  b" | wc -w');
    assert.equal(argv[0], '/system/bin/sh');
    const r = await session.exec!(ctx(), { argv, timeout_ms: 5000, max_output_bytes: 1000 });
    assert.deepEqual([r.exit_code, r.stdout.toString(), r.stderr.toString()], [0, '/system/bin/sh\n2\n', '']);
  });

  it('adbd dying mid-call: a typed, retryable error naming the device', async () => {
    const running = session.exec!(ctx(), { argv: ['sleep', '30'], timeout_ms: 60_000, max_output_bytes: 100 });
    running.catch(() => undefined); // checked below
    await new Promise((r) => setTimeout(r, 500));
    // Kill adbd in the container (not through adbd itself: the stand-in's exec channel is adb).
    const docker = (await import('node:child_process')).execFileSync;
    docker('docker', ['exec', t.context.machine.external_id, 'pkill', '-KILL', '-x', 'adbd']);
    await assert.rejects(running, (e: unknown) => VmhubError.is(e) && e.code === 'INTERNAL' && e.retryable && /went away/.test(e.message));
  });
});
