// The fake desktop's own behaviour, through the router: what a click hits is visible in the
// screenshot's pixels, drags move windows, keys are validated, state lives in the guest.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { CAPABILITIES, CONTRACT_VERSION, defineAdapter, VmhubError } from '@vmhub/core';
import { connectRouter, expectError, expectOk, imageOf, type RouterConnection } from '../src/index.ts';
import { BACKGROUND, DESKTOP_FILE, fakeAdapter, fakeTarget, PALETTE, readDesktop, stubAdapter, TITLE_BAR, type DesktopState } from '../src/fake/index.ts';
import type { AdapterTarget } from '../src/types.ts';

async function pixel(conn: RouterConnection, x: number, y: number): Promise<number[]> {
  const r = await conn.call('vm_screenshot', {});
  const img = imageOf(r)!;
  const { data, info } = await sharp(img.data).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

describe('fake: desktop behaviour', () => {
  let target: AdapterTarget;
  let conn: RouterConnection;
  const state = async (): Promise<DesktopState> => readDesktop(await target.context.channel());

  before(async () => {
    target = await fakeTarget();
    conn = await connectRouter({ adapter: fakeAdapter.create(), context: target.context });
  });
  after(async () => { await conn.close(); await target.dispose(); });

  it('screenshot pixels show windows in their colours, the topmost on top', async () => {
    assert.deepEqual(await pixel(conn, 5, 5), BACKGROUND);
    assert.deepEqual(await pixel(conn, 100, 100), PALETTE[0]);            // Terminal only
    assert.deepEqual(await pixel(conn, 450, 300), PALETTE[1]);            // overlap: Editor is on top
  });

  it('a click on the covered window raises and focuses it (visible in the next screenshot)', async () => {
    expectOk(await conn.call('vm_click', { x: 100, y: 100, coordinate_space: 'screen' }), 'click', '');
    const s = await state();
    assert.equal(s.focused, 'w1');
    assert.equal(s.clicks.at(-1)?.window, 'w1');
    assert.deepEqual(await pixel(conn, 450, 300), PALETTE[0], 'the overlap now shows Terminal');
  });

  it('typed text goes to the focused window', async () => {
    expectOk(await conn.call('vm_type', { text: 'ls -l' }), 'type', '');
    const s = await state();
    assert.equal(s.windows.find((w) => w.id === 'w1')!.text, 'ls -l');
    assert.equal(s.windows.find((w) => w.id === 'w2')!.text, '');
  });

  it('paste delivers Unicode and restores the clipboard', async () => {
    const before = (await state()).clipboard;
    expectOk(await conn.call('vm_paste', { text: '✓ 日本' }), 'paste', '');
    const s = await state();
    assert.ok(s.windows.find((w) => w.id === 'w1')!.text.endsWith('✓ 日本'));
    assert.equal(s.clipboard, before);
    assert.equal(s.keys.at(-1), 'ctrl+v');
  });

  it('a drag on a title bar moves the window; a drag on a body does not', async () => {
    const w1 = (await state()).windows.find((w) => w.id === 'w1')!;
    expectOk(await conn.call('vm_drag', { from: { x: w1.x + 10, y: w1.y + 5 }, to: { x: w1.x + 60, y: w1.y + 45 }, coordinate_space: 'screen' }), 'drag', '');
    const moved = (await state()).windows.find((w) => w.id === 'w1')!;
    assert.deepEqual([moved.x, moved.y], [w1.x + 50, w1.y + 40]);
    expectOk(await conn.call('vm_drag', { from: { x: moved.x + 10, y: moved.y + TITLE_BAR + 10 }, to: { x: 5, y: 5 }, coordinate_space: 'screen' }), 'drag', '');
    const still = (await state()).windows.find((w) => w.id === 'w1')!;
    assert.deepEqual([still.x, still.y], [moved.x, moved.y]);
  });

  it('key validates keysyms', async () => {
    expectOk(await conn.call('vm_key', { keys: 'ctrl+shift+t Return F5' }), 'key', '');
    assert.deepEqual((await state()).keys.slice(-3), ['ctrl+shift+t', 'Return', 'F5']);
    const e = expectError(await conn.call('vm_key', { keys: 'ctrl+Hyperspace' }), 'INVALID_REQUEST', 'bad key', '');
    assert.match(e.message, /Hyperspace/);
  });

  it('launch, focus by title, close', async () => {
    const s = expectOk(await conn.call('vm_launch', { app: '/usr/bin/gedit', args: ['notes.txt'] }), 'launch', '');
    const win = s.window as { id: string; title: string; focused: boolean };
    assert.equal(win.title, 'gedit notes.txt');
    assert.equal(win.focused, true);
    expectOk(await conn.call('vm_focus', { window: 'Editor' }), 'focus', '');
    assert.equal((await state()).focused, 'w2');
    expectOk(await conn.call('vm_close', { window: win.id }), 'close', '');
    assert.ok(!(await state()).windows.some((w) => w.id === win.id));
    expectError(await conn.call('vm_close', { window: win.id }), 'NOT_FOUND', 'close again', '');
  });

  it('inspect honours max_depth', async () => {
    const deep = expectOk(await conn.call('vm_inspect', { max_depth: 3 }), 'inspect', '').tree as { children: { children?: unknown[] }[] };
    assert.ok(deep.children.length >= 2 && deep.children[0]!.children);
    const shallow = expectOk(await conn.call('vm_inspect', { max_depth: 1 }), 'inspect', '').tree as { children?: unknown };
    assert.equal(shallow.children, undefined);
  });

  it('image coordinates of a downscaled screenshot map back to the screen', async () => {
    expectOk(await conn.call('vm_screenshot', { max_width: 512, max_height: 512 }), 'screenshot', '');
    const s = expectOk(await conn.call('vm_click', { x: 50, y: 50 }), 'click', '');
    assert.deepEqual([s.screen_x, s.screen_y], [100, 100]);
    await conn.call('vm_screenshot', {});
  });

  it('the state lives in the guest: another adapter instance sees it', async () => {
    const other = await fakeAdapter.create().open(target.context);
    const windows = await other.listWindows!({ ...target.context, signal: new AbortController().signal });
    await other.dispose();
    assert.deepEqual(windows.map((w) => w.id).sort(), (await state()).windows.map((w) => w.id).sort());
    const raw = await (await target.context.channel()).getFile(DESKTOP_FILE);
    assert.ok(JSON.parse(raw.toString()).windows);
  });

  it('verbs: echo and desktop_state; bad args → INVALID_REQUEST', async () => {
    assert.deepEqual(expectOk(await conn.call('vm_dispatch', { verb: 'echo', args: { value: 'x' } }), 'echo', '').result, { value: 'x' });
    assert.equal((expectOk(await conn.call('vm_dispatch', { verb: 'desktop_state' }), 'state', '').result as DesktopState).screen.width, 1024);
    expectError(await conn.call('vm_dispatch', { verb: 'echo', args: { value: 1 } }), 'INVALID_REQUEST', 'bad args', '');
  });
});

describe('defineAdapter rejects bad plugins', () => {
  const lease = () => fakeTarget();
  it('a declared capability without its method (refused when the session opens)', async () => {
    const bad = defineAdapter({ id: 'bad', version: '0.0.0', contractVersion: 2, capabilities: ['screenshot', 'click'], create: () => ({ open: () => ({ screenshot: async () => ({ data: Buffer.alloc(4), format: 'rgba' as const, width: 1, height: 1 }) }) }) });
    const t = await lease();
    try {
      await assert.rejects(bad.create().open(t.context), (e) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /declares "click" but its session does not implement click\(\)/.test(e.message));
    } finally { await t.dispose(); }
  });

  it('a method without its declared capability', async () => {
    const sneaky = defineAdapter({ id: 'sneaky', version: '0.0.0', contractVersion: 2, capabilities: [], create: () => ({ open: () => ({ exec: async () => ({ exit_code: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: false, truncated: false }) }) }) });
    const t = await lease();
    try {
      await assert.rejects(sneaky.create().open(t.context), /implements exec\(\) but the adapter does not declare "exec"/);
    } finally { await t.dispose(); }
  });

  it('another contract version (contract 1 included), an unknown capability, verbs without dispatch, create() without open()', () => {
    assert.throws(() => defineAdapter({ id: 'old', version: '0.0.0', contractVersion: 1, capabilities: [], create: () => ({ open: () => ({}) }) }), /built for contract version 1, this vmhub speaks 2/);
    assert.throws(() => defineAdapter({ id: 'new', version: '0.0.0', contractVersion: CONTRACT_VERSION + 1, capabilities: [], create: () => ({ open: () => ({}) }) }), /contract version/);
    assert.throws(() => defineAdapter({ id: 'odd', version: '0.0.0', contractVersion: 2, capabilities: ['teleport' as never], create: () => ({ open: () => ({}) }) }), /unknown capability "teleport"/);
    assert.throws(() => defineAdapter({ id: 'verby', version: '0.0.0', contractVersion: 2, capabilities: [], verbs: { x: { description: 'x', args: {} as never, run: async () => 1 } }, create: () => ({ open: () => ({}) }) }), /dispatch/);
    const flat = defineAdapter({ id: 'flat', version: '0.0.0', contractVersion: 2, capabilities: [], create: () => ({}) as never });
    assert.throws(() => flat.create(), /create\(\) must return \{open\(lease\)\}/);
  });

  it('a disposed session refuses calls with LEASE_EXPIRED, and dispose runs the adapter\'s dispose once', async () => {
    let disposals = 0;
    const counted = defineAdapter({ id: 'counted', version: '0.0.0', contractVersion: 2, capabilities: ['type'], create: () => ({ open: () => ({ type: async () => undefined, dispose: () => { disposals++; } }) }) });
    const t = await lease();
    try {
      const s = await counted.create().open(t.context);
      const ctx = { ...t.context, signal: new AbortController().signal };
      await s.type!(ctx, { text: 'a' });
      await Promise.all([s.dispose(), s.dispose()]);
      await s.dispose();
      assert.equal(disposals, 1);
      assert.equal(s.disposed, true);
      await assert.rejects(s.type!(ctx, { text: 'b' }), (e) => VmhubError.is(e) && e.code === 'LEASE_EXPIRED');
    } finally { await t.dispose(); }
  });

  it('the fake adapter declares every capability; the stub none', () => {
    assert.deepEqual([...fakeAdapter.capabilities].sort(), [...CAPABILITIES].sort());
    assert.deepEqual(stubAdapter.capabilities, []);
  });
});
