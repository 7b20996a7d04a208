/**
 * Against TigerVNC's Xvnc (an X server that is its own VNC server): RFB 3.8 with VNC auth, ZRLE,
 * CopyRect when a window moves, and DesktopSize when xrandr resizes the screen.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectRfb } from '../src/index.ts';
import { until } from '@vmhub/test-kit';
import { dial, diffPixels, have, readText, stopAll, xtermCat, xvnc } from './live.ts';

const missing = have('Xvnc', 'vncpasswd', 'xterm', 'xdotool', 'xrandr');

describe('rfb against TigerVNC Xvnc', { skip: missing }, () => {
  let server = { display: '', port: 0 };
  before(async () => { server = await xvnc({ password: 'tiger-pw', size: '800x600' }); });
  after(stopAll);

  test('rfb: Xvnc speaks 3.8 with VNC auth (first 8 password bytes); a wrong password is AUTH_FAILED', async () => {
    const rfb = await connectRfb(await dial(server.port), { password: 'tiger-pw' });
    assert.deepEqual([rfb.protocol, rfb.security, rfb.width, rfb.height], ['3.8', 'vnc', 800, 600]);
    await rfb.close();
    const longer = await connectRfb(await dial(server.port), { password: 'tiger-pw-and-more' });
    assert.equal(longer.security, 'vnc', 'VNC auth uses the first 8 bytes only');
    await longer.close();
    await assert.rejects(connectRfb(await dial(server.port), { password: 'tiger-px' }), (err: Error & { code: string }) => err.code === 'AUTH_FAILED' && /rejected the VNC password/.test(err.message));
  });

  test('rfb: typed text arrives; a moved window arrives as CopyRect, the rest as ZRLE, decoded to the same pixels as a Raw frame', async () => {
    const file = `/tmp/vmhub-rfb-tiger-${process.pid}.txt`;
    await xtermCat(server.display, file);
    const rfb = await connectRfb(await dial(server.port), { password: 'tiger-pw' });
    await rfb.screenshot();
    await rfb.click(30, 30);
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i} scrolls the xterm`).join('\n') + '\n';
    await rfb.typeText(lines);
    await until(() => readText(file) === lines, 'the typed lines', 15_000);
    // Xvnc sends a window's move as CopyRect (the X server copies its pixels).
    const xenv = { env: { ...process.env, DISPLAY: server.display }, encoding: 'utf8' as const };
    const win = spawnSync('xdotool', ['search', '--class', 'xterm'], xenv).stdout.trim().split('\n')[0];
    for (const [x, y] of [[150, 120], [260, 200]]) {
      const before = rfb.stats().updates;
      assert.equal(spawnSync('xdotool', ['windowmove', win, String(x), String(y)], xenv).status, 0);
      await until(() => rfb.stats().updates > before, 'an update after the move', 15_000);
    }
    await sleep(500);
    const live = await rfb.screenshot({ fresh: true });
    const stats = rfb.stats();
    assert.ok((stats.rects[16] ?? 0) > 0, `ZRLE rectangles (got ${JSON.stringify(stats.rects)})`);
    assert.ok((stats.rects[1] ?? 0) > 0, `CopyRect rectangles from the moves (got ${JSON.stringify(stats.rects)})`);
    const raw = await connectRfb(await dial(server.port), { password: 'tiger-pw', encodings: ['raw'] });
    const reference = await raw.screenshot();
    assert.equal(diffPixels(live.data, reference.data), 0, 'ZRLE + CopyRect equal Raw');
    await raw.close();
    await rfb.close();
  });

  test('rfb: xrandr resizes the screen → DesktopSize → resize event and a framebuffer of the new size', async () => {
    const rfb = await connectRfb(await dial(server.port), { password: 'tiger-pw' });
    await rfb.screenshot();
    const resized = new Promise<{ width: number; height: number }>((ok) => rfb.once('resize', ok));
    const r = spawnSync('xrandr', ['-s', '1024x768'], { env: { ...process.env, DISPLAY: server.display }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(await resized, { width: 1024, height: 768 });
    const shot = await rfb.screenshot({ fresh: true });
    assert.deepEqual([shot.width, shot.height, shot.data.length, rfb.width], [1024, 768, 1024 * 768 * 4, 1024]);
    assert.equal(shot.fresh, true);
    const fresh = await connectRfb(await dial(server.port), { password: 'tiger-pw', encodings: ['raw'] });
    assert.deepEqual([fresh.width, fresh.height], [1024, 768]);
    assert.equal(diffPixels(shot.data, (await fresh.screenshot()).data), 0, 'the resized frame is complete');
    await fresh.close();
    await rfb.close();
  });
});
