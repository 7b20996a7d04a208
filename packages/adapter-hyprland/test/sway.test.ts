/**
 * The adapter on a REAL headless sway on this host, effects checked where they land: typed
 * text in a foot terminal's file, clicks/drags/wheel as the terminal's mouse reports (with the
 * cell they hit), windows in sway's own tree, the clipboard through wl-paste.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '@vmhub/test-kit';
import { rejectsWith } from '@vmhub/test-kit/errors';
import { cellOf, startDesktop, textWith, type Desktop, type Sink } from './desktop.ts';


function near(a: number, b: number, what: string) {
  assert.ok(Math.abs(a - b) <= 1, `${what}: got ${a}, expected ${b} (±1 cell)`);
}

describe('hyprland adapter on headless sway (live)', { timeout: 240_000 }, () => {
  let d: Desktop;
  let a: Sink;
  before(async () => { d = await startDesktop(); });
  after(async () => { await d?.stop(); });

  it('probes sway and reports only inspect unavailable (no AT-SPI here)', async () => {
    const info = await d.session.dispatch!(d.ctx, { verb: 'compositor_info', args: {} }) as Record<string, unknown>;
    assert.equal(info.compositor, 'sway');
    const missing = await d.session.probe!(d.ctx);
    assert.deepEqual(Object.keys(missing), ['inspect']);
    await rejectsWith(d.session.inspect!(d.ctx, { max_depth: 3, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 }), 'CAPABILITY_UNAVAILABLE', /AT-SPI/);
  });

  it('takes a PNG screenshot of the whole output in physical pixels', async () => {
    const shot = await d.session.screenshot!(d.ctx);
    assert.equal(shot.format, 'png');
    assert.deepEqual([shot.width, shot.height], [1280, 800]);
    assert.deepEqual(await d.session.screenSize!(d.ctx), { width: 1280, height: 800 });
  });

  it('launches through sway exec and the window appears in listWindows with its pid', async () => {
    a = await d.sink('sink-a');
    const list = await d.session.listWindows!(d.ctx);
    const w = list.find((v) => v.title === 'sink-a');
    assert.ok(w, `sink-a not in ${JSON.stringify(list)}`);
    assert.equal(w.class, 'foot');
    assert.equal(w.focused, true);
    assert.deepEqual([w.x, w.y, w.width, w.height], [0, 0, 1280, 800]);
    // sway's own view of it.
    const tree = d.sway.swaymsg('-t', 'get_tree');
    assert.match(tree, /"name": "sink-a"/);
  });

  it('types Unicode, shell metacharacters literally, and newline as Return', async () => {
    const text = 'héllo ✓ Привет 日本 $HOME `id` "q" \'s\' ; | & > * \\ ~\nsecond\tline\n';
    await d.session.type!(d.ctx, { text });
    assert.equal(await textWith(a.text, 'second\tline\n'), text);
  });

  it('presses keys and combos (shift+letter is the capital); an unknown key is refused before anything is sent', async () => {
    const before = a.text();
    await rejectsWith(d.session.key!(d.ctx, { keys: 'x ctrl+NoSuchKeyVmhub' }), 'INVALID_REQUEST', /NoSuchKeyVmhub/);
    await d.session.key!(d.ctx, { keys: 'k shift+b 1 plus U+2713 Return' });
    const after = await textWith(a.text, `${before}kB1+✓\n`);
    assert.equal(after, `${before}kB1+✓\n`, 'the refused chord typed nothing, the valid ones exactly their keys');
  });

  it('types every printable ASCII character byte-exact, and more distinct characters than one keymap holds', async () => {
    let ascii = '';
    for (let c = 0x20; c <= 0x7e; c++) ascii += String.fromCharCode(c);
    let before = a.text();
    await rejectsWith(d.session.type!(d.ctx, { text: 'no\x01key' }), 'INVALID_REQUEST', /U\+0001/);
    await d.session.type!(d.ctx, { text: `${ascii}\n` });
    assert.equal((await textWith(a.text, `${before}${ascii}\n`)).slice(before.length), `${ascii}\n`);
    // 300 distinct ideographs: past the kept keyboard's 240 keycodes, so its keymap restarts mid-call.
    const many = Array.from({ length: 300 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('');
    before = a.text();
    await d.session.type!(d.ctx, { text: `${many}\n` });
    assert.equal((await textWith(a.text, `${before}${many}\n`)).slice(before.length), `${many}\n`);
  });

  it('chords reach the application as the terminal encodes them: ctrl+a is 0x01, alt+x is ESC x', async () => {
    const before = a.text();
    await d.session.key!(d.ctx, { keys: 'ctrl+a alt+x ctrl+shift+b Return' });
    const after = (await textWith(a.text, `${before}\x01\x1bx`)).slice(before.length);
    assert.ok(after.startsWith('\x01\x1bx'), JSON.stringify(after));
    await textWith(a.text, '\n', 5000);
  });

  it('pastes Unicode into foot with ctrl+shift+v and restores the clipboard', async () => {
    await d.session.dispatch!(d.ctx, { verb: 'set_clipboard', args: { text: 'previous ✓' } });
    const before = a.text();
    await d.session.paste!(d.ctx, { text: 'pasted ünïcödé 日本 $(x)' });
    await textWith(a.text, `${before}pasted ünïcödé 日本 $(x)`);
    const clip = await d.session.dispatch!(d.ctx, { verb: 'get_clipboard', args: {} }) as { text: string };
    assert.equal(clip.text, 'previous ✓');
    const viaHost = execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'wl-paste', '-n'], { env: { ...process.env, ...d.sway.env }, timeout: 5000 }).toString('utf8');
    assert.equal(viaHost, 'previous ✓');
  });

  it('clicks land on the cell under the point', async () => {
    const p = { x: 403, y: 301 };
    const n = a.mouse().length;
    await d.session.click!(d.ctx, { ...p, button: 'left', count: 1, modifiers: [] });
    const reports = await until(() => { const m = a.mouse(); return m.length >= n + 2 ? m.slice(n) : undefined; }, 'mouse reports', 30_000);
    const want = cellOf(a.window, a.size(), p);
    assert.equal(reports[0]!.b, 0);
    assert.equal(reports[0]!.press, true);
    assert.equal(reports[1]!.press, false);
    near(reports[0]!.col, want.col, 'column');
    near(reports[0]!.row, want.row, 'row');
  });

  it('right click and double click send their buttons', async () => {
    const n = a.mouse().length;
    await d.session.click!(d.ctx, { x: 100, y: 100, button: 'right', count: 1, modifiers: [] });
    await d.session.click!(d.ctx, { x: 100, y: 100, button: 'left', count: 2, modifiers: [] });
    const m = await until(() => { const r = a.mouse(); return r.length >= n + 6 ? r.slice(n) : undefined; }, '6 reports', 30_000);
    assert.deepEqual(m.map((r) => `${r.b}${r.press ? 'M' : 'm'}`), ['2M', '2m', '0M', '0m', '0M', '0m']);
  });

  it('holds modifiers during a click (ctrl+click reports the ctrl bit)', async () => {
    const n = a.mouse().length;
    await d.session.click!(d.ctx, { x: 200, y: 200, button: 'left', count: 1, modifiers: ['ctrl'] });
    const m = await until(() => { const r = a.mouse(); return r.length >= n + 2 ? r.slice(n) : undefined; }, 'ctrl click', 30_000);
    assert.equal(m[0]!.b, 16, `xterm encodes ctrl as +16: ${JSON.stringify(m)}`);
  });

  it('scrolls with wheel notches at the point', async () => {
    const n = a.mouse().length;
    await d.session.scroll!(d.ctx, { x: 600, y: 400, direction: 'down', amount: 3 });
    await d.session.scroll!(d.ctx, { x: 600, y: 400, direction: 'up', amount: 1 });
    // foot reports each notch as several wheel events (its scroll multiplier): count ratios.
    const wheel = () => a.mouse().slice(n).filter((v) => v.b >= 64);
    const m = await until(() => { const r = wheel(); return r.some((v) => v.b === 64) ? r : undefined; }, 'wheel reports', 30_000);
    // Count once the reports stop arriving (a loaded machine delivers them late), not after a fixed pause.
    let seen = -1;
    await until(() => { const k = wheel().length; const still = k === seen; seen = k; return still || undefined; }, 'wheel reports to stop', 30_000, 400);
    const all = wheel().map((r) => r.b);
    const downs = all.filter((b) => b === 65).length, ups = all.filter((b) => b === 64).length;
    assert.ok(ups > 0 && downs === 3 * ups, `3 notches down then 1 up, got ${JSON.stringify(all)}`);
    assert.ok(all.lastIndexOf(65) < all.indexOf(64), 'downs before the up');
    near(m[0]!.col, cellOf(a.window, a.size(), { x: 600, y: 400 }).col, 'wheel column');
  });

  it('drags: press at from, motion with the button held, release at to', async () => {
    const n = a.mouse().length;
    const from = { x: 100, y: 200 }, to = { x: 500, y: 260 };
    await d.session.drag!(d.ctx, { from, to, button: 'left' });
    const m = await until(() => { const r = a.mouse().slice(n); return r.some((v) => !v.press) ? r : undefined; }, 'drag reports', 30_000);
    assert.equal(m[0]!.b, 0);
    assert.ok(m.some((v) => v.b === 32), `no motion-with-button report in ${JSON.stringify(m)}`);
    const end = m.at(-1)!;
    assert.equal(end.press, false);
    near(m[0]!.col, cellOf(a.window, a.size(), from).col, 'press column');
    near(end.col, cellOf(a.window, a.size(), to).col, 'release column');
  });

  describe('two windows', () => {
    let b: Sink;
    before(async () => { b = await d.sink('sink-b'); });

    it('tiles them side by side, focuses by id, and a click focuses the window it lands on', async () => {
      const list = await d.session.listWindows!(d.ctx);
      const wa = list.find((w) => w.title === 'sink-a')!, wb = list.find((w) => w.title === 'sink-b')!;
      assert.ok(wb.focused && !wa.focused);
      assert.ok(wa.x < wb.x, 'sink-a left of sink-b');
      const f = await d.session.focus!(d.ctx, { window: wa.id });
      assert.equal(f.focused, true);
      // Click into sink-b: focus follows the click, and only sink-b's terminal gets it.
      const na = a.mouse().length, nb = b.mouse().length;
      await d.session.click!(d.ctx, { x: wb.x + 50, y: 50, button: 'left', count: 1, modifiers: [] });
      await until(async () => (await d.session.listWindows!(d.ctx)).find((w) => w.id === wb.id)?.focused || undefined, 'sink-b focused', 30_000);
      await until(() => (b.mouse().length >= nb + 2 ? true : undefined), 'click in sink-b', 30_000);
      assert.equal(a.mouse().length, na, 'sink-a saw no click');
      // Typing now goes to sink-b.
      await d.session.type!(d.ctx, { text: 'to-b' });
      await textWith(b.text, 'to-b');
      assert.ok(!a.text().includes('to-b'));
    });

    it('closes a window gracefully; it leaves the list', async () => {
      const wb = (await d.session.listWindows!(d.ctx)).find((w) => w.title === 'sink-b')!;
      const r = await d.session.close!(d.ctx, { window: wb.id });
      assert.equal(r.window_id, wb.id);
      await until(async () => ((await d.session.listWindows!(d.ctx)).some((w) => w.id === wb.id) ? undefined : true), 'sink-b gone', 30_000);
      await rejectsWith(d.session.focus!(d.ctx, { window: wb.id }), 'NOT_FOUND', /no window/);
    });
  });

  it('a cancelled vm_type stops in the guest: no more characters arrive', async () => {
    const start = a.text().length;
    await rejectsWith(d.session.type!({ ...d.ctx, signal: AbortSignal.timeout(400) }, { text: 'z'.repeat(300) }), 'TIMEOUT', /cancelled/);
    const settledText = await until(async () => { const t0 = a.text(); await new Promise((r) => setTimeout(r, 300)); return a.text() === t0 ? t0 : undefined; }, 'typing stopped', 30_000);
    const typed = settledText.length - start;
    assert.ok(typed < 300, `only part of the text arrived (${typed} of 300)`);
    await d.session.type!(d.ctx, { text: '!' });
    assert.equal((await textWith(a.text, `${settledText.slice(-3)}!`)).length, settledText.length + 1, 'nothing more of the cancelled text, then the next call types normally');
  });

  it('keeps one virtual pointer between clicks and stops it at dispose', async () => {
    const other = await d.open({ compositor: 'sway' });
    const holders = () => readdirSync(d.sway.runtimeDir).filter((f) => f.startsWith('vmhub-vpointer-') && f.endsWith('.pid'));
    const before = new Set(holders());
    await other.click!(d.ctx, { x: 10, y: 10, button: 'left', count: 1, modifiers: [] });
    const mine = holders().filter((f) => !before.has(f));
    assert.equal(mine.length, 1, 'the session started one holder');
    const pid = Number(readFileSync(join(d.sway.runtimeDir, mine[0]!), 'utf8'));
    assert.doesNotThrow(() => process.kill(pid, 0), 'the holder runs');
    await other.click!(d.ctx, { x: 12, y: 12, button: 'left', count: 1, modifiers: [] });
    assert.equal(holders().filter((f) => !before.has(f)).length, 1, 'a second click reuses it');
    await other.dispose();
    assert.ok(!existsSync(join(d.sway.runtimeDir, mine[0]!)), 'dispose removed its pid file');
    await until(() => { try { process.kill(pid, 0); return undefined; } catch { return true; } }, 'holder gone', 30_000);
  });

  it('keeps one virtual keyboard per session between calls and stops it at dispose', async () => {
    const other = await d.open({ compositor: 'sway' });
    const helpers = () => readdirSync(d.sway.runtimeDir).filter((f) => f.startsWith('vmhub-vkbd-') && f.endsWith('.pid'));
    const before = new Set(helpers());
    const start = a.text().length;
    await other.type!(d.ctx, { text: 'kb1' });
    const mine = helpers().filter((f) => !before.has(f));
    assert.equal(mine.length, 1, 'the session started one keyboard helper');
    const pid = Number(readFileSync(join(d.sway.runtimeDir, mine[0]!), 'utf8'));
    await other.key!(d.ctx, { keys: 'k b 2' });
    await other.type!(d.ctx, { text: 'ü' });
    assert.deepEqual(helpers().filter((f) => !before.has(f)), mine, 'later calls reuse it');
    assert.equal(Number(readFileSync(join(d.sway.runtimeDir, mine[0]!), 'utf8')), pid);
    assert.equal((await textWith(a.text, 'kb1kb2ü')).slice(start), 'kb1kb2ü');
    await other.dispose();
    assert.ok(!existsSync(join(d.sway.runtimeDir, mine[0]!)), 'dispose removed its pid file');
    await until(() => { try { process.kill(pid, 0); return undefined; } catch { return true; } }, 'keyboard helper gone', 30_000);
  });

  it('launch of a missing program is NOT_FOUND', async () => {
    await rejectsWith(d.session.launch!(d.ctx, { app: 'no-such-app-vmhub', args: [], wait_seconds: 1 }), 'NOT_FOUND', /not an executable/);
  });

  it('exec runs with the session environment', async () => {
    const r = await d.session.exec!(d.ctx, { argv: ['sh', '-c', 'echo "$WAYLAND_DISPLAY $XDG_RUNTIME_DIR"'], timeout_ms: 5000, max_output_bytes: 1000 });
    assert.equal(r.stdout.toString('utf8').trim(), `wayland-1 ${d.sway.runtimeDir}`);
  });
});

describe('hyprland adapter on headless sway at output scale 2 (live)', { timeout: 180_000 }, () => {
  let d: Desktop;
  before(async () => {
    d = await startDesktop();
    d.sway.swaymsg('output', 'HEADLESS-1', 'scale', '2');
  });
  after(async () => { await d?.stop(); });

  it('screenshots stay in physical pixels and clicks land where the image shows them', async () => {
    const shot = await d.session.screenshot!(d.ctx);
    assert.deepEqual([shot.width, shot.height], [1280, 800], 'the 640x400 logical output is captured at its 1280x800 pixels');
    const outputs = await d.session.dispatch!(d.ctx, { verb: 'list_outputs', args: {} }) as { screen_scale: number; outputs: { width: number }[] };
    assert.equal(outputs.screen_scale, 2);
    assert.equal(outputs.outputs[0]!.width, 640);
    const left = await d.sink('left');
    const right = await d.sink('right');
    const list = await d.session.listWindows!(d.ctx);
    const wl = list.find((w) => w.title === 'left')!, wr = list.find((w) => w.title === 'right')!;
    // Window rects come back in screenshot pixels: the two tiles split the 1280 px.
    assert.deepEqual([wl.x, wl.width, wr.x, wr.width], [0, 640, 640, 640]);
    // Pixel (500, 300) is logical (250, 150): inside "left". Read as logical it would be in "right".
    const p = { x: 500, y: 300 };
    await d.session.click!(d.ctx, { ...p, button: 'left', count: 1, modifiers: [] });
    await until(async () => (await d.session.listWindows!(d.ctx)).find((w) => w.id === wl.id)?.focused || undefined, 'left focused', 30_000);
    const m = await until(() => (left.mouse().length >= 2 ? left.mouse() : undefined), 'click in left', 30_000);
    assert.equal(right.mouse().length, 0);
    const want = cellOf(wl, left.size(), p, 2);
    near(m[0]!.col, want.col, 'column at scale 2');
    near(m[0]!.row, want.row, 'row at scale 2');
  });
});

describe('hyprland adapter on headless sway with two outputs, scales 1 and 2 (live)', { timeout: 180_000 }, () => {
  let d: Desktop;
  before(async () => {
    d = await startDesktop({ outputs: 2 });
    d.sway.swaymsg('output', 'HEADLESS-2', 'scale', '2', 'position', '1280', '0');
  });
  after(async () => { await d?.stop(); });

  it('captures the whole layout at the highest scale and maps a click on the scaled output', async () => {
    const shot = await d.session.screenshot!(d.ctx);
    // Layout: 1280x800 + 640x400 logical side by side = 1920x800, captured at scale 2.
    assert.deepEqual([shot.width, shot.height], [3840, 1600]);
    d.sway.swaymsg('focus', 'output', 'HEADLESS-2');
    const s2 = await d.sink('on-two');
    const w = (await d.session.listWindows!(d.ctx)).find((v) => v.title === 'on-two')!;
    assert.deepEqual([w.x, w.y, w.width, w.height], [2560, 0, 1280, 800], 'the 640x400 logical window at x=1280 is at pixel 2560 in the image');
    const p = { x: 2560 + 700, y: 500 };
    await d.session.click!(d.ctx, { ...p, button: 'left', count: 1, modifiers: [] });
    const m = await until(() => (s2.mouse().length >= 2 ? s2.mouse() : undefined), 'click on output 2', 30_000);
    const want = cellOf(w, s2.size(), p, 2);
    near(m[0]!.col, want.col, 'column on output 2');
    near(m[0]!.row, want.row, 'row on output 2');
  });

  it('with option output, the screen is that output alone, at its own scale', async () => {
    const one = await d.open({ xdg_runtime_dir: d.sway.runtimeDir, compositor: 'sway', output: 'HEADLESS-2' });
    const shot = await one.screenshot!(d.ctx);
    assert.deepEqual([shot.width, shot.height], [1280, 800]);
    const w = (await one.listWindows!(d.ctx)).find((v) => v.title === 'on-two')!;
    assert.deepEqual([w.x, w.y], [0, 0], 'window rects are relative to the chosen output');
  });

  it('a fractional scale (1.5) keeps the image and the pointer in step', async () => {
    d.sway.swaymsg('output', 'HEADLESS-2', 'scale', '1.5');
    const one = await d.open({ xdg_runtime_dir: d.sway.runtimeDir, compositor: 'sway', output: 'HEADLESS-2' });
    const shot = await one.screenshot!(d.ctx);
    const outputs = await one.dispatch!(d.ctx, { verb: 'list_outputs', args: {} }) as { outputs: { name: string; width: number; height: number }[] };
    const o2 = outputs.outputs.find((o) => o.name === 'HEADLESS-2')!;
    assert.ok(Math.abs(shot.width - o2.width * 1.5) <= 2 && Math.abs(shot.height - o2.height * 1.5) <= 2, `image ${shot.width}x${shot.height} for a ${o2.width}x${o2.height} logical output at 1.5`);
    await new Promise((r) => setTimeout(r, 500)); // foot re-lays out at the new scale
    const s = await d.sink('frac');
    const w = (await one.listWindows!(d.ctx)).find((v) => v.title === 'frac')!;
    const p = { x: w.x + Math.round(w.width * 0.7), y: w.y + Math.round(w.height * 0.6) };
    await one.click!(d.ctx, { ...p, button: 'left', count: 1, modifiers: [] });
    const m = await until(() => (s.mouse().length >= 2 ? s.mouse() : undefined), 'click at 1.5', 30_000);
    const want = cellOf(w, s.size(), p, 1.5);
    near(m[0]!.col, want.col, 'column at 1.5');
    near(m[0]!.row, want.row, 'row at 1.5');
  });
});
