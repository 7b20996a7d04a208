import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VmhubError, type AdapterContext, type ConsoleHandle } from '@vmhub/core';
import { click } from './console-click.ts';
import { drag } from './console-drag.ts';
import { sendStrokes, toAbs } from './console-input.ts';
import { createRuntime } from './console-runtime.ts';
import { scroll } from './console-scroll.ts';

function fakeTarget(width: number, height: number): { ctx: AdapterContext; events: any[]; shots: () => number } {
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
    signal: new AbortController().signal, console: async () => con, channel: async () => { throw new Error('none'); },
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
