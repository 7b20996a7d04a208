import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VmhubError, type AdapterContext, type ConsoleHandle } from '@vmhub/core';
import { click } from './console-click.ts';
import { drag } from './console-drag.ts';
import { sendStrokes, toAbs } from './console-input.ts';
import { type } from './console-type.ts';
import { createRuntime } from './console-runtime.ts';
import { scroll } from './console-scroll.ts';

function fakeTarget(width: number, height: number, signal: AbortSignal = new AbortController().signal): { ctx: AdapterContext; events: any[]; shots: () => number } {
  const events: any[] = [];
  let shots = 0;
  const con: ConsoleHandle = {
    kind: 'qmp',
    async execute(command, args) { assert.equal(command, 'input-send-event'); events.push(...(args!.events as unknown[])); return {}; },
    async screendump() { shots++; return { data: Buffer.alloc(0), format: 'png', width, height }; },
    async close() {},
  };
  const ctx = {
    lease_id: 'l1', machine: { identity: 'vmhub-x-l1', external_id: 'x' }, template: { id: 't', provider: 'qemu', adapter: 'console', os: 'linux', golden: '/g' },
    signal, console: async () => con, channel: async () => { throw new Error('none'); },
  } as AdapterContext;
  return { ctx, events, shots: () => shots };
}
const show = (e: any) => `${e.type}:${e.data.axis ?? e.data.button ?? e.data.key?.data}:${e.data.value ?? e.data.down}`;

test('console: screen pixels map onto the tablet 0..32767 axes', () => {
  const s = { width: 720, height: 400 };
  assert.deepEqual(toAbs({ x: 0, y: 0 }, s), { x: 0, y: 0 });
  assert.deepEqual(toAbs({ x: 719, y: 399 }, s), { x: 32767, y: 32767 });
  assert.deepEqual(toAbs({ x: 360, y: 200 }, s), { x: 16406, y: 16425 });
});

test('console: click with count and modifiers becomes one input-send-event sequence', async () => {
  const rt = { ...createRuntime({ pointer_delay_ms: 0 }) };
  const { ctx, events, shots } = fakeTarget(1000, 1000);
  await click(rt, ctx, { x: 10, y: 20, button: 'right', count: 2, modifiers: ['ctrl'] });
  assert.equal(shots(), 1, 'screen size learned from one screendump');
  assert.deepEqual(events.map(show), ['abs:x:328', 'abs:y:656', 'key:ctrl:true', 'btn:right:true', 'btn:right:false', 'btn:right:true', 'btn:right:false', 'key:ctrl:false']);
});

test('console: drag ends pressed → released at the target, scroll turns the wheel', async () => {
  const rt = createRuntime({ pointer_delay_ms: 0, drag_steps: 4 });
  const a = fakeTarget(1000, 1000);
  await drag(rt, a.ctx, { from: { x: 0, y: 0 }, to: { x: 999, y: 999 }, button: 'left' });
  const kinds = a.events.map((e) => (e.type === 'btn' ? `${e.data.button}:${e.data.down}` : e.type));
  assert.equal(kinds[2], 'left:true');
  assert.equal(kinds.at(-1), 'left:false');
  assert.deepEqual(a.events.at(-3).data, { axis: 'x', value: 32767 });
  const b = fakeTarget(1000, 1000);
  await scroll(rt, b.ctx, { x: 1, y: 1, direction: 'down', amount: 3 });
  assert.equal(b.events.filter((e) => e.type === 'btn' && e.data.button === 'wheel-down' && e.data.down).length, 3);
});

test('console: off-screen points are refused before any event, after one fresh screen check', async () => {
  const rt = createRuntime({ pointer_delay_ms: 0 });
  const { ctx, events, shots } = fakeTarget(640, 480);
  for (const p of [{ x: 640, y: 0 }, { x: 0, y: 480 }, { x: -1, y: 3 }]) {
    await assert.rejects(click(rt, ctx, { ...p, button: 'left', count: 1, modifiers: [] }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
  }
  await assert.rejects(drag(rt, ctx, { from: { x: 1, y: 1 }, to: { x: 700, y: 1 }, button: 'left' }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
  assert.deepEqual(events, []);
  assert.ok(shots() >= 2, 'a point beyond the cached size re-reads the screen once before refusing');
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
  const rt = createRuntime({ key_delay_ms: 10 });
  const call = type(rt, ctx, { text: 'Hello World! '.repeat(40) });
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
  await assert.rejects(type(createRuntime({ key_delay_ms: 0 }), ctx, { text: 'x' }), (e: unknown) => VmhubError.is(e) && e.code === 'TIMEOUT' && /not started/.test(e.message));
  await assert.rejects(scroll(createRuntime({ pointer_delay_ms: 0 }), ctx, { x: 1, y: 1, direction: 'down', amount: 3 }), (e: unknown) => VmhubError.is(e) && e.code === 'TIMEOUT');
  assert.equal(events.filter((e) => e.type === 'key' || e.type === 'btn').length, 0);
});

test('console: a cancelled drag releases the button', async () => {
  const ac = new AbortController();
  const { ctx, events } = fakeTarget(1000, 1000, ac.signal);
  const call = drag(createRuntime({ pointer_delay_ms: 20, drag_steps: 50 }), ctx, { from: { x: 0, y: 0 }, to: { x: 999, y: 999 }, button: 'left' });
  await new Promise((r) => setTimeout(r, 150));
  ac.abort();
  await assert.rejects(call, (e: unknown) => VmhubError.is(e) && e.code === 'TIMEOUT' && /button released/.test(e.message));
  const buttons = events.filter((e) => e.type === 'btn').map((e) => e.data.down);
  assert.deepEqual(buttons, [true, false]);
});

