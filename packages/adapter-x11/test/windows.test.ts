/**
 * x11: windows and screen — list/focus/close/launch reflected in the window list, a drag that moves
 * a window by its title bar, and a screenshot whose pixels match what is on the screen.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { VmhubError } from '@vmhub/core';
import { shapeScreenshot } from '@vmhub/core/screenshot';
import { until } from '@vmhub/test-kit';
import { startDesktop, type Desktop } from './desktop.ts';

let d: Desktop;
before(async () => { d = await startDesktop(); });
after(async () => { await d?.stop(); });

const rand = () => randomBytes(4).toString('hex');
const list = () => d.session.listWindows!(d.ctx);

async function code(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (err) { assert.ok(VmhubError.is(err), String(err)); return `${err.code}: ${err.message}`; }
  return 'resolved';
}

describe('x11: list_windows, focus, close', () => {
  it('lists windows with id, title, class, geometry, focus and visibility', async () => {
    const title = `list-${rand()}`;
    d.x.spawnX(['xterm', '-T', title, '-geometry', '60x8+100+120', '-e', 'sleep', '60']);
    const w = await d.window(title);
    assert.match(w.id, /^0x[0-9a-f]{8}$/);
    assert.equal(w.class, 'XTerm');
    assert.equal(w.visible, true);
    assert.ok(w.width > 100 && w.height > 50, JSON.stringify(w));
    assert.ok(w.x >= 100 && w.y >= 120, `client area is inside the frame placed at +100+120: ${JSON.stringify(w)}`);
    const focused = (await list()).filter((v) => v.focused);
    assert.ok(focused.length <= 1);
  });

  it('focus by id and by exact title; NOT_FOUND; ambiguous title lists the ids', async () => {
    const a = `focus-a-${rand()}`, b = `focus-b-${rand()}`;
    d.x.spawnX(['xterm', '-T', a, '-e', 'sleep', '60']);
    const wa = await d.window(a);
    d.x.spawnX(['xterm', '-T', b, '-e', 'sleep', '60']);
    const wb = await d.window(b);
    const fa = await d.session.focus!(d.ctx, { window: wa.id });
    assert.equal(fa.id, wa.id);
    assert.equal(fa.focused, true);
    assert.deepEqual((await list()).filter((w) => w.focused).map((w) => w.id), [wa.id]);
    const fb = await d.session.focus!(d.ctx, { window: b });
    assert.equal(fb.id, wb.id);
    assert.equal(fb.focused, true);
    assert.match(await code(d.session.focus!(d.ctx, { window: `nope-${rand()}` })), /^NOT_FOUND: .*no window with id or exact title/);
    assert.match(await code(d.session.focus!(d.ctx, { window: '0x7ffffff0' })), /^NOT_FOUND/);
    const twin = `twin-${rand()}`;
    d.x.spawnX(['xterm', '-T', twin, '-e', 'sleep', '60']);
    d.x.spawnX(['xterm', '-T', twin, '-e', 'sleep', '60']);
    const twins = await until(async () => { const t = (await list()).filter((w) => w.title === twin); return t.length === 2 ? t : undefined; }, 'two twins', 8000, 100);
    const msg = await code(d.session.focus!(d.ctx, { window: twin }));
    assert.match(msg, /^INVALID_REQUEST: .*ambiguous/);
    for (const t of twins) assert.ok(msg.includes(t.id), `${msg} should list ${t.id}`);
  });

  it('close asks the window to close; it leaves the window list', async () => {
    const title = `close-${rand()}`;
    d.x.spawnX(['xterm', '-T', title, '-e', 'sleep', '60']);
    const w = await d.window(title);
    const r = await d.session.close!(d.ctx, { window: title });
    assert.equal(r.window_id, w.id);
    await until(async () => ((await list()).some((v) => v.id === w.id) ? undefined : true), 'window gone', 5000, 100);
    assert.match(await code(d.session.close!(d.ctx, { window: title })), /^NOT_FOUND/);
  });
});

describe('x11: launch', () => {
  it('launches an app detached and reports its pid and new window', async () => {
    const title = `launch-${rand()}`;
    const r = await d.session.launch!(d.ctx, { app: 'xterm', args: ['-T', title, '-e', 'sleep', '60'], wait_seconds: 10 });
    assert.ok(r.pid && r.pid > 1, JSON.stringify(r));
    d.x.adopt(r.pid!);
    assert.equal(r.window?.title, title);
    assert.equal(r.window?.class, 'XTerm');
    assert.ok((await list()).some((w) => w.id === r.window!.id));
  });

  it('args are argv, never shell words', async () => {
    const title = `argv-${rand()}; touch /tmp/pwned-${rand()}`;
    const r = await d.session.launch!(d.ctx, { app: 'xterm', args: ['-T', title, '-e', 'sleep', '60'], wait_seconds: 10 });
    d.x.adopt(r.pid!);
    assert.equal(r.window?.title, title);
  });

  it('a missing app is NOT_FOUND; an option-looking app is INVALID_REQUEST', async () => {
    assert.match(await code(d.session.launch!(d.ctx, { app: `no-such-app-${rand()}`, args: [], wait_seconds: 1 })), /^NOT_FOUND/);
    assert.match(await code(d.session.launch!(d.ctx, { app: '--help', args: [], wait_seconds: 1 })), /^INVALID_REQUEST/);
  });
});

describe('x11: drag', () => {
  it('dragging a title bar moves the window', async () => {
    const title = `drag-${rand()}`;
    d.x.spawnX(['xterm', '-T', title, '-geometry', '40x6+300+300', '-e', 'sleep', '60']);
    const w0 = await until(async () => (await list()).find((w) => w.title === title && w.visible), 'mapped', 8000, 100);
    await d.session.focus!(d.ctx, { window: w0.id });
    // The title bar sits just above the client area.
    const from = { x: w0.x + Math.floor(w0.width / 2), y: w0.y - 8 };
    await d.session.drag!(d.ctx, { from, to: { x: from.x + 150, y: from.y + 100 }, button: 'left' });
    const w1 = await until(async () => { const w = (await list()).find((v) => v.id === w0.id); return w && (w.x !== w0.x || w.y !== w0.y) ? w : undefined; }, 'moved', 3000, 100);
    assert.ok(Math.abs(w1.x - w0.x - 150) <= 2 && Math.abs(w1.y - w0.y - 100) <= 2, `moved by (${w1.x - w0.x}, ${w1.y - w0.y}), expected (150, 100)`);
  });
});

describe('x11: screenshot', () => {
  it('captures the screen: right size, not blank, pixels where the windows are', async () => {
    const title = `shot-${rand()}`;
    d.x.spawnX(['xterm', '-T', title, '-geometry', '40x10+600+200', '-bg', 'white', '-fg', 'black', '-e', 'sleep', '60']);
    const w = await until(async () => (await list()).find((v) => v.title === title && v.visible), 'mapped', 8000, 100);
    await d.session.focus!(d.ctx, { window: w.id });
    const raw = await d.session.screenshot!(d.ctx);
    assert.equal(raw.format, 'rgb');
    assert.deepEqual([raw.width, raw.height], [1280, 800]);
    assert.equal(raw.data.length, 1280 * 800 * 3);
    const px = (x: number, y: number) => [...raw.data.subarray((y * 1280 + x) * 3, (y * 1280 + x) * 3 + 3)];
    // Bottom-right of the white xterm is white; the bare root (openbox paints it grey) is not.
    assert.deepEqual(px(w.x + w.width - 3, w.y + w.height - 3), [255, 255, 255]);
    assert.notDeepEqual(px(1279, 799), [255, 255, 255]);
    const colours = new Set<string>();
    for (let y = 0; y < 800; y += 16) for (let x = 0; x < 1280; x += 16) colours.add(px(x, y).join(','));
    assert.ok(colours.size >= 3, `not blank: ${colours.size} colours sampled`);
    const shaped = await shapeScreenshot(raw, { format: 'png', maxWidth: 640, maxHeight: 400 });
    // PNG IHDR: width and height at bytes 16..23.
    assert.equal(shaped.data.subarray(1, 4).toString('latin1'), 'PNG');
    assert.deepEqual([shaped.data.readUInt32BE(16), shaped.data.readUInt32BE(20), shaped.scale], [640, 400, 0.5]);
    assert.deepEqual(await d.session.screenSize!(d.ctx), { width: 1280, height: 800 });
  });

  it('is fast: capture time measured', async () => {
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await d.session.screenshot!(d.ctx);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`# screenshot capture p50 ${times[5]!.toFixed(1)} ms, max ${times[9]!.toFixed(1)} ms (xwd + parse, host channel)`);
    const clicks: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await d.session.click!(d.ctx, { x: 5 + i, y: 790, button: 'left', count: 1, modifiers: [] });
      clicks.push(performance.now() - t);
    }
    clicks.sort((a, b) => a - b);
    console.log(`# click p50 ${clicks[10]!.toFixed(1)} ms, p95 ${clicks[18]!.toFixed(1)} ms (host channel)`);
    assert.ok(times[5]! < 1000);
  });
});
