/**
 * The adapter's Hyprland path against the IPC stand-in (hyprland-ipc-standin.py) on a live
 * headless sway: discovery through hyprland.lock, the version probe picking the dispatch
 * syntax, windows by address, focus/close/exec through dispatchers in both syntaxes — with
 * effects checked in sway itself — and screen and input on the sway session underneath.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '@vmhub/test-kit';
import { rejectsWith } from '@vmhub/test-kit/errors';
import { cellOf, startDesktop, textWith, type Desktop, type Sink } from './desktop.ts';

for (const [version, syntax] of [['0.41.2', 'hyprlang'], ['0.55.4', 'lua']] as const) {
  describe(`hyprland adapter on the IPC stand-in playing ${version} (${syntax})`, { timeout: 180_000 }, () => {
    let d: Desktop;
    let one: Sink;
    before(async () => { d = await startDesktop({ hyprland: version }); });
    after(async () => { await d?.stop(); });

    it('finds the instance by its lock file and picks the dispatch syntax from j/version', async () => {
      const info = await d.session.dispatch!(d.ctx, { verb: 'compositor_info', args: {} }) as Record<string, unknown>;
      assert.deepEqual(info, { compositor: 'hyprland', wayland_display: 'wayland-1', version, dispatch_syntax: syntax, signature: 'vmhub-standin' });
      assert.deepEqual(Object.keys(await d.session.probe!(d.ctx)), ['inspect']);
    });

    it('reads monitors for the layout and screenshots with grim', async () => {
      const shot = await d.session.screenshot!(d.ctx);
      assert.deepEqual([shot.width, shot.height], [1280, 800]);
      const o = await d.session.dispatch!(d.ctx, { verb: 'list_outputs', args: {} }) as { outputs: { name: string; width: number; scale: number }[] };
      assert.deepEqual(o.outputs.map((v) => [v.name, v.width, v.scale]), [['HEADLESS-1', 1280, 1]]);
    });

    it('launches through dispatch exec and finds the window among j/clients by pid', async () => {
      one = await d.sink('one');
      assert.match(one.window.id, /^0x[0-9a-f]+$/);
      const list = await d.session.listWindows!(d.ctx);
      assert.deepEqual(list.map((w) => [w.title, w.class, w.focused]), [['one', 'foot', true]]);
    });

    it('types into the focused window and clicks land (sway underneath)', async () => {
      await d.session.type!(d.ctx, { text: 'hyprland ✓ $x\n' });
      await textWith(one.text, 'hyprland ✓ $x\n');
      await d.session.click!(d.ctx, { x: 640, y: 400, button: 'left', count: 1, modifiers: [] });
      await until(() => (one.mouse().length >= 2 ? true : undefined), 'click report', 30_000);
    });

    it('focuses and closes by address, with effects in sway', async () => {
      const two = await d.sink('two');
      assert.equal(two.window.focused, true);
      const f = await d.session.focus!(d.ctx, { window: one.window.id });
      assert.equal(f.focused, true);
      assert.equal(d.swayView('one')?.focused, true, 'sway has focused "one"');
      await d.session.close!(d.ctx, { window: two.window.id });
      await until(() => (d.swayView('two') ? undefined : true), 'two gone from sway', 30_000);
      assert.deepEqual((await d.session.listWindows!(d.ctx)).map((w) => w.title), ['one']);
      await rejectsWith(d.session.focus!(d.ctx, { window: two.window.id }), 'NOT_FOUND', /no window/);
      await rejectsWith(d.session.close!(d.ctx, { window: '5' }), 'NOT_FOUND', /no window/);
    });

    it('at output scale 2, j/monitors (mode / scale) gives the logical layout and clicks still land', async () => {
      d.sway.swaymsg('output', 'HEADLESS-1', 'scale', '2');
      const shot = await d.session.screenshot!(d.ctx);
      assert.deepEqual([shot.width, shot.height], [1280, 800]);
      const o = await d.session.dispatch!(d.ctx, { verb: 'list_outputs', args: {} }) as { screen_scale: number; outputs: { width: number; height: number }[] };
      assert.deepEqual([o.screen_scale, o.outputs[0]!.width, o.outputs[0]!.height], [2, 640, 400]);
      const w = (await d.session.listWindows!(d.ctx)).find((v) => v.title === 'one')!;
      assert.deepEqual([w.x, w.y, w.width, w.height], [0, 0, 1280, 800], 'j/clients at/size (logical) mapped back to image pixels');
      const n = one.mouse().length;
      await d.session.click!(d.ctx, { x: 1200, y: 700, button: 'left', count: 1, modifiers: [] });
      const m = await until(() => { const r = one.mouse(); return r.length >= n + 2 ? r.slice(n) : undefined; }, 'click at scale 2', 30_000);
      const want = cellOf(w, one.size(), { x: 1200, y: 700 }, 2);
      assert.ok(Math.abs(m[0]!.col - want.col) <= 1 && Math.abs(m[0]!.row - want.row) <= 1, `cell ${m[0]!.col},${m[0]!.row} for ${want.col},${want.row}`);
    });
  });
}

describe('hyprland adapter on a 0.55 stand-in that still runs a hyprlang config', { timeout: 120_000 }, () => {
  let d: Desktop;
  before(async () => { d = await startDesktop(); await d.standin('0.55.4', 'legacy-config', ['--config', 'hyprlang']); });
  after(async () => { await d?.stop(); });

  it('falls back to the hyprlang syntax when Lua is refused, and keeps it', async () => {
    const s = await d.open({ xdg_runtime_dir: d.sway.runtimeDir, compositor: 'hyprland', hyprland_instance_signature: 'legacy-config' });
    const info = await s.dispatch!(d.ctx, { verb: 'compositor_info', args: {} }) as Record<string, unknown>;
    assert.equal(info.dispatch_syntax, 'lua', '0.55 is probed as Lua first');
    const r = await s.launch!(d.ctx, { app: 'foot', args: ['-T', 'legacy', 'sleep', '60'], wait_seconds: 10 });
    assert.ok(r.window, 'the exec went through after the fallback');
    const again = await s.dispatch!(d.ctx, { verb: 'compositor_info', args: {} }) as Record<string, unknown>;
    assert.equal(again.dispatch_syntax, 'hyprlang');
  });

  it('with compositor auto, a live Hyprland instance wins over sway; compositor sway ignores it', async () => {
    const auto = await d.open({ xdg_runtime_dir: d.sway.runtimeDir });
    assert.equal((await auto.dispatch!(d.ctx, { verb: 'compositor_info', args: {} }) as { compositor: string }).compositor, 'hyprland');
    assert.equal((await d.session.dispatch!(d.ctx, { verb: 'compositor_info', args: {} }) as { compositor: string }).compositor, 'sway');
  });
});
