/**
 * Against x11vnc (LibVNCServer) over a live Xvfb: every protocol version it can be forced to,
 * None and VNC auth, typed text arriving in a file, clicks/drag/scroll landing in an X window,
 * ZRLE decoded to the same pixels as Raw, and sockets closed after close().
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectRfb, keysymFor } from '../src/index.ts';
import { until } from '@vmhub/test-kit';
import { dial, diffPixels, have, pointerAt, readText, stopAll, x11vnc, xevWindow, xtermCat, xvfb } from './live.ts';

const missing = have('Xvfb', 'x11vnc', 'xterm', 'xev', 'xdotool', 'xdpyinfo', 'stdbuf');

describe('rfb against x11vnc', { skip: missing }, () => {
  let display = '';
  before(async () => { display = await xvfb('800x600'); });
  after(stopAll);

  for (const version of ['3.3', '3.7', '3.8'] as const) {
    test(`rfb: x11vnc -rfbversion ${version}, no password: handshake and a full frame`, async () => {
      const port = await x11vnc(display, ['-rfbversion', version]);
      const rfb = await connectRfb(await dial(port));
      assert.equal(rfb.protocol, version);
      assert.equal(rfb.security, 'none');
      const shot = await rfb.screenshot();
      assert.deepEqual([shot.width, shot.height, shot.data.length], [800, 600, 800 * 600 * 4]);
      await rfb.close();
    });

    test(`rfb: x11vnc -rfbversion ${version} with a password: VNC auth, and a wrong one is AUTH_FAILED`, async () => {
      const port = await x11vnc(display, ['-rfbversion', version, '-passwd', 'sesame12']);
      const rfb = await connectRfb(await dial(port), { password: 'sesame12' });
      assert.equal(rfb.security, 'vnc');
      assert.equal(rfb.protocol, version);
      await rfb.close();
      await assert.rejects(connectRfb(await dial(port), { password: 'sesame13' }), { code: 'AUTH_FAILED' });
      await assert.rejects(connectRfb(await dial(port)), { code: 'AUTH_FAILED' });
    });
  }

  test('rfb: typed text (ASCII, shifted symbols, Latin-1, newline) arrives in a file; ctrl+d through keyCombo ends cat', async () => {
    const port = await x11vnc(display);
    const file = `/tmp/vmhub-rfb-typed-${process.pid}.txt`;
    await xtermCat(display, file);
    const rfb = await connectRfb(await dial(port));
    await rfb.click(40, 40); // focus follows the pointer in a bare X server: put it on the xterm
    const text = 'Hello, VNC! {x}=[1]+2 ~ä é?\nsecond\tline\n';
    await rfb.typeText(text);
    assert.equal(await rfb.sync(), true, 'x11vnc answered the sync request');
    await until(() => readText(file) === text, 'the typed text', 15_000);
    await rfb.keyCombo('ctrl+d');
    await until(async () => {
      const { spawnSync } = await import('node:child_process');
      return spawnSync('xdotool', ['search', '--class', 'xterm'], { env: { ...process.env, DISPLAY: display } }).status !== 0;
    }, 'cat to exit (the xterm closes)', 15_000);
    assert.equal(readText(file), text);
    await rfb.close();
  });

  test('rfb: clicks, a double click, right click, drag and scroll land at the framebuffer coordinates', async () => {
    const port = await x11vnc(display);
    const events = await xevWindow(display, 'xev', '300x200+300+200');
    const rfb = await connectRfb(await dial(port));
    await rfb.click(350, 250);
    await rfb.click(360, 260, { button: 'right' });
    await rfb.click(370, 270, { count: 2 });
    await rfb.drag({ x: 320, y: 220 }, { x: 500, y: 350 });
    await rfb.scroll(400, 300, 'down', 3);
    await rfb.scroll(400, 300, 'up');
    await until(() => events().filter((e) => e.type === 'ButtonPress').length >= 9, 'all button events', 15_000);
    const presses = events().filter((e) => e.type === 'ButtonPress').map((e) => [e.button, e.x, e.y]);
    assert.deepEqual(presses, [[1, 350, 250], [3, 360, 260], [1, 370, 270], [1, 370, 270], [1, 320, 220], [5, 400, 300], [5, 400, 300], [5, 400, 300], [4, 400, 300]]);
    const releases = events().filter((e) => e.type === 'ButtonRelease').map((e) => [e.button, e.x, e.y]);
    assert.deepEqual(releases[4], [1, 500, 350], 'the drag released at its end');
    const motionDuringDrag = events().filter((e) => e.type === 'MotionNotify' && e.x > 320 && e.x < 500);
    assert.ok(motionDuringDrag.length >= 3, 'motion with the button held between the ends');
    await rfb.pointer(123, 456, 0);
    await until(() => { const p = pointerAt(display); return p.x === 123 && p.y === 456; }, 'the pointer at 123,456', 15_000);
    await rfb.close();
  });

  test('rfb: the ZRLE framebuffer, kept by incremental updates, equals a Raw full frame; fresh sees a change', async () => {
    const port = await x11vnc(display);
    const file = `/tmp/vmhub-rfb-zrle-${process.pid}.txt`;
    await xtermCat(display, file);
    const live = await connectRfb(await dial(port));
    const before = await live.screenshot();
    await live.click(40, 40);
    await live.typeText('pixels over ZRLE\n'.repeat(5));
    await until(() => readText(file).length === 17 * 5, 'the text', 15_000);
    await sleep(300);
    const after = await live.screenshot({ fresh: true });
    assert.equal(after.fresh, true);
    assert.ok(diffPixels(before.data, after.data) > 100, 'typed text changed the picture');
    const raw = await connectRfb(await dial(port), { encodings: ['raw'] });
    const reference = await raw.screenshot();
    assert.ok((raw.stats().rects[0] ?? 0) > 0 && !raw.stats().rects[16], 'the reference came as Raw');
    assert.ok((live.stats().rects[16] ?? 0) > 0, 'the live client received ZRLE');
    const settled = await live.screenshot({ fresh: true });
    assert.equal(diffPixels(settled.data, reference.data), 0, 'ZRLE and Raw decode to the same pixels');
    await raw.close();
    await live.close();
  });

  test('rfb: close() destroys the socket, emits close once and leaves no TCP handle behind', async () => {
    const port = await x11vnc(display);
    const count = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    await sleep(100); // the port probe's socket goes away
    const base = count();
    const sockets = [];
    for (let i = 0; i < 3; i++) {
      const s = await dial(port);
      sockets.push(s);
      const rfb = await connectRfb(s);
      let closes = 0;
      rfb.on('close', () => closes++);
      await rfb.screenshot();
      await rfb.keyPress(keysymFor('shift'));
      await rfb.close();
      await rfb.close();
      assert.equal(closes, 1);
    }
    await sleep(100);
    assert.ok(sockets.every((s) => s.destroyed));
    assert.equal(count(), base);
  });
});
