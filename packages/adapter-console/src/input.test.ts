import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VmhubError, type AdapterContext, type ConsoleHandle, type OpenSession } from '@vmhub/core';
import { connectRouter, expectError } from '@vmhub/conformance';
import { callContext, testLease } from '@vmhub/test-kit';
import plugin from './index.ts';
import { sendStrokes, toAbs } from './input.ts';
import { openConsoleSession } from './adapter.ts';
import type { ConsoleAdapterOptions } from './options.ts';

function fakeTarget(width: number, height: number, signal: AbortSignal = new AbortController().signal): { ctx: AdapterContext; events: any[]; shots: () => number } {
  const events: any[] = [];
  let shots = 0;
  const con: ConsoleHandle = {
    kind: 'qmp',
    async execute(command, args) { assert.equal(command, 'input-send-event'); events.push(...(args!.events as unknown[])); return {}; },
    async screendump() { shots++; return { data: Buffer.alloc(0), format: 'png', width, height }; },
    async close() {},
  };
  const ctx = callContext(testLease({ template: { provider: 'qemu', adapter: 'console' }, console: con }), signal);
  return { ctx, events, shots: () => shots };
}
/** A session of the adapter (through defineAdapter, as core opens it) on the fake target's lease. */
const open = (options: ConsoleAdapterOptions, ctx: AdapterContext): Promise<OpenSession> => plugin.create(options).open(ctx);
const show = (e: any) => `${e.type}:${e.data.axis ?? e.data.button ?? e.data.key?.data}:${e.data.value ?? e.data.down}`;

test('console: screen pixels map onto the tablet 0..32767 axes', () => {
  const s = { width: 720, height: 400 };
  assert.deepEqual(toAbs({ x: 0, y: 0 }, s), { x: 0, y: 0 });
  assert.deepEqual(toAbs({ x: 719, y: 399 }, s), { x: 32767, y: 32767 });
  assert.deepEqual(toAbs({ x: 360, y: 200 }, s), { x: 16406, y: 16425 });
});

test('console: click with count and modifiers becomes one input-send-event sequence', async () => {
  const { ctx, events, shots } = fakeTarget(1000, 1000);
  const session = await open({ pointer_delay_ms: 0 }, ctx);
  await session.click!(ctx, { x: 10, y: 20, button: 'right', count: 2, modifiers: ['ctrl'] });
  assert.equal(shots(), 1, 'screen size learned from one screendump');
  assert.deepEqual(events.map(show), ['abs:x:328', 'abs:y:656', 'key:ctrl:true', 'btn:right:true', 'btn:right:false', 'btn:right:true', 'btn:right:false', 'key:ctrl:false']);
  await session.click!(ctx, { x: 999, y: 999, button: 'left', count: 1, modifiers: [] });
  assert.equal(shots(), 1, 'the session keeps the size: no screendump per click');
  await session.dispose();
});

test('console: the screen size is per session and dropped by dispose', async () => {
  const { ctx, shots } = fakeTarget(800, 600);
  const a = await open({}, ctx);
  const b = await open({}, ctx);
  assert.deepEqual(await a.screenSize!(ctx), { width: 800, height: 600 });
  assert.deepEqual(await a.screenSize!(ctx), { width: 800, height: 600 });
  assert.equal(shots(), 1, 'learned once per session');
  await b.screenSize!(ctx);
  assert.equal(shots(), 2, 'another lease\'s session learns its own');
  await a.dispose();
  await assert.rejects(a.screenSize!(ctx), (e: unknown) => VmhubError.is(e) && e.code === 'LEASE_EXPIRED', 'nothing runs on a disposed session');
  await b.dispose();
  // Unwrapped (core would refuse the call), to see that dispose() really dropped what it held.
  const raw = openConsoleSession({}, ctx);
  await raw.screenSize(ctx);
  assert.equal(shots(), 3);
  await raw.dispose();
  await raw.screenSize(ctx);
  assert.equal(shots(), 4, 'the size was dropped by dispose');
});

test('console: drag ends pressed → released at the target, scroll turns the wheel', async () => {
  const options = { pointer_delay_ms: 0, drag_steps: 4 };
  const a = fakeTarget(1000, 1000);
  await (await open(options, a.ctx)).drag!(a.ctx, { from: { x: 0, y: 0 }, to: { x: 999, y: 999 }, button: 'left' });
  const kinds = a.events.map((e) => (e.type === 'btn' ? `${e.data.button}:${e.data.down}` : e.type));
  assert.equal(kinds[2], 'left:true');
  assert.equal(kinds.at(-1), 'left:false');
  assert.deepEqual(a.events.at(-3).data, { axis: 'x', value: 32767 });
  const b = fakeTarget(1000, 1000);
  await (await open(options, b.ctx)).scroll!(b.ctx, { x: 1, y: 1, direction: 'down', amount: 3 });
  assert.equal(b.events.filter((e) => e.type === 'btn' && e.data.button === 'wheel-down' && e.data.down).length, 3);
});

test('console: off-screen points are refused by core before any event (the size from one screendump)', async () => {
  const { ctx, events, shots } = fakeTarget(640, 480);
  // Bounds are core's rule: the router checks screen points against session.screenSize().
  const conn = await connectRouter({ adapter: plugin.create({ pointer_delay_ms: 0 }), context: ctx });
  try {
    for (const p of [{ x: 640, y: 0 }, { x: 0, y: 480 }, { x: -1, y: 3 }]) {
      const e = expectError(await conn.call('vm_click', { ...p, coordinate_space: 'screen' }), 'INVALID_REQUEST', `vm_click ${JSON.stringify(p)}`, 'refuse off-screen points');
      // A negative coordinate is refused by the tool's schema already, before any bounds check.
      if (p.x >= 0) assert.match(e.message, /off the 640x480 screen/);
    }
    expectError(await conn.call('vm_drag', { from: { x: 1, y: 1 }, to: { x: 700, y: 1 }, coordinate_space: 'screen' }), 'INVALID_REQUEST', 'vm_drag off-screen', 'refuse off-screen points');
    expectError(await conn.call('vm_scroll', { x: 1, y: 480, direction: 'down', coordinate_space: 'screen' }), 'INVALID_REQUEST', 'vm_scroll off-screen', 'refuse off-screen points');
    assert.deepEqual(events, []);
    assert.equal(shots(), 1, 'core read the size once through the session\'s screenSize()');
    const ok = await conn.call('vm_click', { x: 639, y: 479, coordinate_space: 'screen' });
    assert.ok(!ok.isError, JSON.stringify(ok.content));
    assert.deepEqual(events.slice(0, 2).map(show), ['abs:x:32767', 'abs:y:32767'], 'the last pixel is the tablet\'s corner');
  } finally {
    await conn.close();
  }
});

test('console: chords press modifiers first and release them last', async () => {
  const { ctx, events } = fakeTarget(10, 10);
  await sendStrokes(await ctx.console(), [{ modifiers: ['ctrl', 'alt'], key: 'delete' }], 0);
  assert.deepEqual(events.map((e) => `${e.data.key.data}:${e.data.down}`), ['ctrl:true', 'alt:true', 'delete:true', 'delete:false', 'alt:false', 'ctrl:false']);
});

/** Every key pressed was released again, in the same event stream. */
function nothingHeld(events: any[]): void {
  const held = new Set<string>();
  for (const e of events.filter((x) => x.type === 'key')) (e.data.down ? held.add(e.data.key.data) : held.delete(e.data.key.data));
  assert.deepEqual([...held], [], 'no key left held');
}

test('console: a cancelled vm_type stops within one stroke and leaves no key or modifier held', async () => {
  const ac = new AbortController();
  const { ctx, events } = fakeTarget(10, 10, ac.signal);
  const session = await open({ key_delay_ms: 10 }, ctx);
  const call = session.type!(ctx, { text: 'Hello World! '.repeat(40) });
  await new Promise((r) => setTimeout(r, 200));
  ac.abort();
  const abortedAt = Date.now();
  const sentAtAbort = events.length;
  await assert.rejects(call, (e: unknown) => VmhubError.is(e) && e.code === 'TIMEOUT' && /keyboard input stopped after \d+ of 520 key strokes/.test(e.message));
  assert.ok(Date.now() - abortedAt < 100, `ended ${Date.now() - abortedAt} ms after the abort`);
  assert.ok(events.length <= sentAtAbort + 2, 'at most the release of the stroke in flight after the abort');
  assert.ok(events.length > 0 && events.length < 520 * 2);
  nothingHeld(events);
});

test('console: an already-cancelled call sends nothing', async () => {
  const ac = new AbortController();
  ac.abort();
  const { ctx, events } = fakeTarget(10, 10, ac.signal);
  await assert.rejects((await open({ key_delay_ms: 0 }, ctx)).type!(ctx, { text: 'x' }), (e: unknown) => VmhubError.is(e) && e.code === 'TIMEOUT' && /not started/.test(e.message));
  await assert.rejects((await open({ pointer_delay_ms: 0 }, ctx)).scroll!(ctx, { x: 1, y: 1, direction: 'down', amount: 3 }), (e: unknown) => VmhubError.is(e) && e.code === 'TIMEOUT');
  assert.equal(events.filter((e) => e.type === 'key' || e.type === 'btn').length, 0);
});

test('console: a cancelled drag releases the button', async () => {
  const ac = new AbortController();
  const { ctx, events } = fakeTarget(1000, 1000, ac.signal);
  const call = (await open({ pointer_delay_ms: 20, drag_steps: 50 }, ctx)).drag!(ctx, { from: { x: 0, y: 0 }, to: { x: 999, y: 999 }, button: 'left' });
  await new Promise((r) => setTimeout(r, 150));
  ac.abort();
  await assert.rejects(call, (e: unknown) => VmhubError.is(e) && e.code === 'TIMEOUT' && /button released/.test(e.message));
  const buttons = events.filter((e) => e.type === 'btn').map((e) => e.data.down);
  assert.deepEqual(buttons, [true, false]);
});

