/** Pure parts, no compositor: key names, both dispatch syntaxes, layout maths, IPC parsing, options. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { VmhubError } from '@vmhub/core';
import { keyArgs, resolveOptions } from '../src/index.ts';
import { dispatchRequest, dispatchOk, luaString, parseFramed, syntaxFor, versionOf } from '../src/hypr-ipc.ts';
import { hyprMonitors, makeLayout, swayOutputs, toLogical, toScreenRect } from '../src/layout.ts';
import { moveOp } from '../src/vpointer.ts';
import { hyprWindows, swayWindows } from '../src/compositor.ts';
import { parseDiscovery } from '../src/desktop.ts';
import { chunks } from '../src/hyprland-type.ts';
import { clickOps } from '../src/hyprland-click.ts';
import { rowsToRgb } from '../src/capture.ts';

describe('hyprland: key names → keyboard ops', () => {
  it('maps chords, aliases, punctuation and Unicode', () => {
    assert.deepEqual(keyArgs('ctrl+shift+t'), ['-M', 'ctrl', '-M', 'shift', '-k', 't', '-m', 'shift', '-m', 'ctrl']);
    assert.deepEqual(keyArgs('Return esc super+l'), ['-k', 'Return', '-k', 'Escape', '-M', 'logo', '-k', 'l', '-m', 'logo']);
    assert.deepEqual(keyArgs('ctrl++ U+2713 é'), ['-M', 'ctrl', '-k', 'plus', '-m', 'ctrl', '-k', 'U2713', '-k', 'U00E9']);
    assert.deepEqual(keyArgs('shift+b'), ['B'], 'shift+letter types the capital itself');
    assert.deepEqual(keyArgs('super'), ['-k', 'Super_L'], 'a modifier alone taps its key');
    assert.deepEqual(keyArgs('ctrl+alt+Delete'), ['-M', 'ctrl', '-M', 'alt', '-k', 'Delete', '-m', 'alt', '-m', 'ctrl']);
    assert.deepEqual(keyArgs('a+b'), ['-P', 'a', '-P', 'b', '-p', 'b', '-p', 'a']);
  });
  it('resolves keysym names case-insensitively to their X names', () => {
    assert.deepEqual(keyArgs('ctrl+page_up f5 RETURN'), ['-M', 'ctrl', '-k', 'Prior', '-m', 'ctrl', '-k', 'F5', '-k', 'Return']);
  });
  it('refuses names that cannot be keysyms before anything runs', () => {
    assert.throws(() => keyArgs('ctrl+no-such'), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /no-such/.test(e.message));
    assert.throws(() => keyArgs('ctrl+NoSuchKeyVmhub'), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /NoSuchKeyVmhub/.test(e.message), 'a well-formed name that is no keysym');
    assert.throws(() => keyArgs('  '), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    assert.throws(() => keyArgs('U+110000'), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /U\+?110000/.test(e.message), 'past Unicode: no keysym');
  });
});

describe('hyprland: dispatch syntaxes', () => {
  const a = '0x55d0c0de0910';
  it('hyprlang (≤ 0.54)', () => {
    assert.equal(dispatchRequest({ kind: 'focus', address: a }, 'hyprlang'), `dispatch focuswindow address:${a}`);
    assert.equal(dispatchRequest({ kind: 'close', address: a }, 'hyprlang'), `dispatch closewindow address:${a}`);
    assert.equal(dispatchRequest({ kind: 'exec', command: 'sh /run/x/run' }, 'hyprlang'), 'dispatch exec sh /run/x/run');
    assert.equal(dispatchRequest({ kind: 'movecursor', x: 3, y: 4 }, 'hyprlang'), 'dispatch movecursor 3 4');
  });
  it('Lua (≥ 0.55)', () => {
    assert.equal(dispatchRequest({ kind: 'focus', address: a }, 'lua'), `dispatch hl.dsp.focus({ window = "address:${a}" })`);
    assert.equal(dispatchRequest({ kind: 'close', address: a }, 'lua'), `dispatch hl.dsp.window.close({ window = "address:${a}" })`);
    assert.equal(dispatchRequest({ kind: 'exec', command: 'sh /run/x/run' }, 'lua'), 'dispatch hl.dsp.exec_cmd("sh /run/x/run")');
    assert.equal(dispatchRequest({ kind: 'movecursor', x: 3, y: 4 }, 'lua'), 'dispatch hl.dsp.cursor.move({ x = 3, y = 4 })');
  });
  it('Lua strings escape every byte that could end or bend them', () => {
    assert.equal(luaString('a"b\\c\n]]é'), '"a\\034b\\092c\\010\\093\\093\\195\\169"');
  });
  it('picks the syntax from j/version of either shape', () => {
    assert.equal(versionOf({ tag: 'v0.41.2-b' }), '0.41.2');
    assert.equal(versionOf({ version: '0.55.4', tag: 'v0.55.4' }), '0.55.4');
    assert.equal(syntaxFor('0.41.2'), 'hyprlang');
    assert.equal(syntaxFor('0.54.3'), 'hyprlang');
    assert.equal(syntaxFor('0.55.0'), 'lua');
    assert.equal(syntaxFor('1.0.0'), 'lua');
    assert.ok(dispatchOk('ok') && !dispatchOk('Invalid dispatcher'));
  });
  it('reads length-framed replies', () => {
    assert.deepEqual(parseFramed(Buffer.from('2\nok3\n[1]0\n')), ['ok', '[1]', '']);
    assert.deepEqual(parseFramed(Buffer.from('4\n✓\n', 'utf8')), ['✓\n']);
  });
});

describe('hyprland: layout and coordinate mapping', () => {
  const one = (scale: number) => [{ name: 'A', x: 0, y: 0, width: Math.round(1280 / scale), height: Math.round(800 / scale), scale, focused: true }];
  it('a scale-2 output: screenshot pixels are physical, input logical', () => {
    const l = makeLayout(one(2));
    assert.deepEqual(l.screen, { width: 1280, height: 800 });
    assert.deepEqual(toLogical(l, { x: 500, y: 300 }), { x: 250, y: 150 });
    assert.deepEqual(toScreenRect(l, { x: 320, y: 0, width: 320, height: 400 }), { x: 640, y: 0, width: 640, height: 800 });
    // Absolute motion as a fraction of the layout box (1/100 logical px): pixel 500's centre.
    assert.deepEqual(moveOp(l, { x: 500, y: 300 }), ['move', '25025', '15025', '64000', '40000']);
  });
  it('two outputs of different scales: the image is the box at the highest scale', () => {
    const l = makeLayout([
      { name: 'A', x: 0, y: 0, width: 1280, height: 800, scale: 1, focused: false },
      { name: 'B', x: 1280, y: 0, width: 640, height: 400, scale: 2, focused: true },
    ]);
    assert.deepEqual(l.screen, { width: 3840, height: 1600 });
    assert.deepEqual(toLogical(l, { x: 2560, y: 0 }), { x: 1280, y: 0 });
    const b = makeLayout(l.outputs, 'B');
    assert.deepEqual([b.screen, b.origin, b.scale, b.output], [{ width: 1280, height: 800 }, { x: 1280, y: 0 }, 2, 'B']);
    assert.deepEqual(moveOp(b, { x: 0, y: 0 }), ['move', '128025', '25', '192000', '80000'], 'a point of output B is placed inside the whole box');
    assert.throws(() => makeLayout(l.outputs, 'C'), /names no active output/);
  });
  it('reads sway outputs and Hyprland monitors (mode / scale, rotated)', () => {
    assert.deepEqual(swayOutputs([{ name: 'H', active: true, rect: { x: 0, y: 0, width: 640, height: 400 }, scale: 2, focused: true }, { name: 'off', active: false }]),
      [{ name: 'H', x: 0, y: 0, width: 640, height: 400, scale: 2, focused: true }]);
    assert.deepEqual(hyprMonitors([{ name: 'DP-1', x: 0, y: 0, width: 2560, height: 1440, scale: 2, transform: 1, focused: true, disabled: false }]),
      [{ name: 'DP-1', x: 0, y: 0, width: 720, height: 1280, scale: 2, focused: true }]);
  });
  it('plans clicks and cuts text by characters', () => {
    const ops = clickOps(makeLayout(one(1)), { x: 10, y: 20 }, 'right', 2, 60);
    assert.deepEqual(ops.slice(5), ['down', '273', 'up', '273', 'sleep', '60', 'down', '273', 'up', '273']);
    assert.deepEqual(chunks('a✓b\r\nc', 2), ['a✓', 'b\n', 'c']);
  });
});

describe('hyprland: window lists', () => {
  it('sway: views only, content rect, scratchpad hidden', () => {
    const view = (id: number, name: string, extra: Record<string, unknown> = {}) => ({ id, type: 'con', name, app_id: 'foot', pid: 100 + id, rect: { x: 10, y: 20, width: 300, height: 200 }, window_rect: { x: 2, y: 3, width: 296, height: 194 }, nodes: [], ...extra });
    const tree = { id: 1, type: 'root', nodes: [
      { id: 2, type: 'output', name: '__i3', nodes: [{ id: 3, type: 'workspace', name: '__i3_scratch', nodes: [], floating_nodes: [view(9, 'hidden')] }] },
      { id: 4, type: 'output', name: 'H', nodes: [{ id: 5, type: 'workspace', name: '1', nodes: [view(6, 'one', { focused: true })], floating_nodes: [] }] },
    ] };
    const ws = swayWindows(tree);
    assert.deepEqual(ws.map((w) => [w.id, w.title, w.visible, w.focused, w.x, w.y, w.width, w.pid]), [['9', 'hidden', false, false, 12, 23, 296, 109], ['6', 'one', true, true, 12, 23, 296, 106]]);
  });
  it('Hyprland: mapped clients only, focus from focusHistoryID 0, visibility from active workspaces', () => {
    const c = (address: string, ws: number, extra: Record<string, unknown> = {}) => ({ address, mapped: true, hidden: false, at: [0, 0], size: [10, 10], workspace: { id: ws, name: String(ws) }, class: 'k', title: address, pid: 5, focusHistoryID: 1, ...extra });
    const ws = hyprWindows([c('0x1', 1, { focusHistoryID: 0 }), c('0x2', 2), c('0x3', 1, { mapped: false })] as never, [{ activeWorkspace: { id: 1 }, specialWorkspace: { id: 0 } }]);
    assert.deepEqual(ws.map((w) => [w.id, w.focused, w.visible]), [['0x1', true, true], ['0x2', false, false]]);
  });
  it('discovery output', () => {
    assert.deepEqual(parseDiscovery('rt /run/user/1000\nhypr sig\nhyprwd wayland-1\nsway /run/user/1000/sway-ipc.1000.7.sock\nwl wayland-1\n'), {
      rt: '/run/user/1000', hypr: 'sig', hyprWayland: 'wayland-1', sway: '/run/user/1000/sway-ipc.1000.7.sock', wayland: ['wayland-1'],
    });
  });
});

describe('hyprland: shared frame rows → RGB', () => {
  // Two pixels a row, stride 12 (4 bytes of padding), two rows: red, green / blue, white.
  const bgrx = Buffer.from([0, 0, 255, 0, 0, 255, 0, 0, 9, 9, 9, 9, 255, 0, 0, 0, 255, 255, 255, 0, 9, 9, 9, 9]);
  const want = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255];
  it('reads XRGB8888 (B,G,R,x in memory) and skips the row padding', () => {
    assert.deepEqual([...rowsToRgb(bgrx, { width: 2, height: 2, stride: 12, format: 1, flags: 0 })], want);
  });
  it('reads XBGR8888 (R,G,B,x) and turns a y-inverted frame the right way up', () => {
    const rgbx = Buffer.from([0, 0, 255, 0, 255, 255, 255, 0, 9, 9, 9, 9, 255, 0, 0, 0, 0, 255, 0, 0, 9, 9, 9, 9]);
    assert.deepEqual([...rowsToRgb(rgbx, { width: 2, height: 2, stride: 12, format: 0x34324258, flags: 1 })], want);
  });
});

describe('hyprland: options', () => {
  it('fills defaults and refuses what is not an option', () => {
    const o = resolveOptions({});
    assert.equal(o.compositor, 'auto');
    assert.equal(o.input_settle_ms, 150);
    assert.throws(() => resolveOptions({ compositor: 'gnome' } as never), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    assert.throws(() => resolveOptions({ xdg_runtime_dir: 'relative' }), /xdg_runtime_dir/);
    assert.throws(() => resolveOptions({ nope: 1 } as never), (e: unknown) => VmhubError.is(e));
  });
});
