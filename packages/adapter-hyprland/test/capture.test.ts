/**
 * Screenshots through the shared framebuffer (capture.ts) on a REAL headless sway: a directory
 * shared as provider-docker shares one, the kept capture helper in the "guest". Checked: the
 * frame is grim's to the pixel, a screenshot after the first runs no guest command, what was
 * typed shows, an output change is seen without a layout read per call, a screen that never
 * stands still is captured, a transformed output and a helper that went away fall back or
 * recover, dispose stops the helper.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import type { RawScreen } from '@vmhub/core';
import { until } from '@vmhub/test-kit';
import { CAPTURE_SOCKET } from '../src/capture-py.ts';
import { startDesktop, type Desktop } from './desktop.ts';

/** grim's frame of the output as packed RGB (binary PPM). */
async function grimRgb(d: Desktop): Promise<{ width: number; height: number; data: Buffer }> {
  const res = await d.channel.exec(['grim', '-t', 'ppm', '-'], { env: d.sway.env, maxOutputBytes: 64 * 1024 * 1024 });
  const ppm = res.stdout;
  const head = ppm.toString('latin1', 0, 64).match(/^P6\s+(\d+)\s+(\d+)\s+255\s/);
  assert.ok(head, 'grim wrote a binary PPM');
  return { width: Number(head[1]), height: Number(head[2]), data: ppm.subarray(head[0].length) };
}

function differing(a: Buffer, b: Buffer): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) n++;
  return n;
}

describe('screenshots through the shared framebuffer on headless sway (live)', { timeout: 240_000 }, () => {
  let d: Desktop;
  const sock = () => join(d.sway.dir, 'fb', 'screen', CAPTURE_SOCKET);
  before(async () => { d = await startDesktop({ framebuffer: true }); });
  after(async () => { await d?.stop(); });

  it('reads grim\'s pixels from the shared file, later screenshots run no guest command, typed text shows', async () => {
    // A terminal that echoes what is typed (sinks do not).
    const r = await d.session.launch!(d.ctx, { app: 'foot', args: ['-T', 'echo', 'cat'], wait_seconds: 15 });
    assert.ok(r.window, 'the terminal opened');
    await new Promise((res) => setTimeout(res, 500)); // foot has drawn its first frame
    const first = await d.session.screenshot!(d.ctx);
    assert.ok(existsSync(sock()), 'the helper listens in the shared directory');
    const before = d.channel.calls.length;
    let shot: RawScreen = first;
    for (let i = 0; i < 3; i++) shot = await d.session.screenshot!(d.ctx);
    assert.equal(d.channel.calls.length, before, 'no guest command per screenshot');
    assert.equal(shot.format, 'rgb');
    assert.deepEqual([shot.width, shot.height], [1280, 800]);
    const grim = await grimRgb(d);
    assert.deepEqual([grim.width, grim.height], [1280, 800]);
    assert.equal(differing(shot.data, grim.data), 0, 'the same pixels as grim');
    await d.session.type!(d.ctx, { text: 'shown through the framebuffer' });
    const changed = await until(async () => {
      const s = await d.session.screenshot!(d.ctx);
      return differing(s.data, shot.data) > 0 ? s : undefined;
    }, 'a frame that shows the typed text', 10_000, 50);
    await new Promise((res) => setTimeout(res, 300)); // foot has drawn all of it
    const last = await d.session.screenshot!(d.ctx);
    assert.ok(differing(changed.data, shot.data) > 0);
    assert.equal(differing(last.data, (await grimRgb(d)).data), 0, 'the frame with the text is grim\'s too');
  });

  it('sees an output change without reading the layout per call: scale 2 keeps rects in screenshot pixels', async () => {
    d.sway.swaymsg('output', 'HEADLESS-1', 'scale', '2');
    const shot = await d.session.screenshot!(d.ctx);
    assert.deepEqual([shot.width, shot.height], [1280, 800]);
    const w = (await d.session.listWindows!(d.ctx)).find((v) => v.title === 'echo')!;
    assert.deepEqual([w.x, w.y, w.width, w.height], [0, 0, 1280, 800], 'the 640x400 logical window is the whole 1280x800 image');
    d.sway.swaymsg('output', 'HEADLESS-1', 'scale', '1');
  });

  it('a transformed output is captured by grim (which rotates it)', async () => {
    d.sway.swaymsg('output', 'HEADLESS-1', 'transform', '90');
    try {
      const before = d.channel.calls.length;
      const shot = await d.session.screenshot!(d.ctx);
      assert.equal(shot.format, 'png');
      assert.deepEqual([shot.width, shot.height], [800, 1280]);
      assert.ok(d.channel.calls.slice(before).some((argv) => argv.includes('grim')), 'grim ran');
    } finally {
      d.sway.swaymsg('output', 'HEADLESS-1', 'transform', 'normal');
    }
    const back = await d.session.screenshot!(d.ctx);
    assert.deepEqual([back.format, back.width, back.height], ['rgb', 1280, 800]);
  });

  it('a screen that never stands still is still captured (a copy nothing overwrites when reads disagree; one read per live frame)', async () => {
    const r = await d.session.launch!(d.ctx, { app: 'foot', args: ['-T', 'busy', 'sh', '-c', 'while :; do date +%N; done'], wait_seconds: 15 });
    assert.ok(r.window);
    const digests = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const shot = await d.session.screenshot!(d.ctx);
      assert.deepEqual([shot.format, shot.width, shot.height], ['rgb', 1280, 800]);
      digests.add(createHash('sha1').update(shot.data).digest('hex'));
    }
    assert.ok(digests.size > 1, 'the frames follow the changing screen');
    // A live view's frames: one read each, whatever the screen does, and no guest command.
    await d.session.screenshot!(d.ctx, { live: true });
    const before = d.channel.calls.length;
    for (let i = 0; i < 5; i++) {
      const shot = await d.session.screenshot!(d.ctx, { live: true });
      assert.deepEqual([shot.format, shot.width, shot.height], ['rgb', 1280, 800]);
    }
    assert.equal(d.channel.calls.length, before, 'no guest command per live frame');
    await d.session.close!(d.ctx, { window: r.window.id });
  });

  it('a helper that went away is started again; dispose stops it', async () => {
    createConnection(sock()).end('q\n');
    await until(() => !existsSync(sock()) || undefined, 'helper stopped', 10_000);
    const shot = await d.session.screenshot!(d.ctx);
    assert.deepEqual([shot.format, shot.width, shot.height], ['rgb', 1280, 800]);
    assert.ok(existsSync(sock()), 'started again');
    await d.session.dispose();
    await until(() => !existsSync(sock()) || undefined, 'helper stopped at dispose', 10_000);
  });
});
