import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConsoleHandle } from '@vmhub/core';
import { click, drag, scroll, toAbs } from './console-pointer.ts';
import { sendStrokes } from './console-keyboard.ts';

function recorder(): { con: ConsoleHandle; events: unknown[] } {
  const events: unknown[] = [];
  const con: ConsoleHandle = {
    kind: 'qmp',
    async execute(command, args) { assert.equal(command, 'input-send-event'); events.push(...(args!.events as unknown[])); return {}; },
    async screendump() { throw new Error('unused'); },
    async close() {},
  };
  return { con, events };
}

test('console: screen pixels map onto the tablet 0..32767 axes', () => {
  const s = { width: 720, height: 400 };
  assert.deepEqual(toAbs({ x: 0, y: 0 }, s), { x: 0, y: 0 });
  assert.deepEqual(toAbs({ x: 719, y: 399 }, s), { x: 32767, y: 32767 });
  assert.deepEqual(toAbs({ x: 360, y: 200 }, s), { x: 16406, y: 16425 });
});

test('console: click, drag, scroll and chords become input-send-event sequences', async () => {
  const s = { width: 1000, height: 1000 };
  const a = recorder();
  await click(a.con, { x: 10, y: 20 }, s, 'right', 2, ['ctrl'], 0);
  assert.deepEqual(a.events.map((e: any) => `${e.type}:${e.data.axis ?? e.data.button ?? e.data.key?.data}:${e.data.value ?? e.data.down}`), [
    'abs:x:328', 'abs:y:656', 'key:ctrl:true', 'btn:right:true', 'btn:right:false', 'btn:right:true', 'btn:right:false', 'key:ctrl:false',
  ]);
  const b = recorder();
  await drag(b.con, { x: 0, y: 0 }, { x: 999, y: 999 }, s, 'left', 4, 0);
  const kinds = b.events.map((e: any) => e.type === 'btn' ? `${e.data.button}:${e.data.down}` : e.type);
  assert.equal(kinds[2], 'left:true');
  assert.equal(kinds.at(-1), 'left:false');
  assert.deepEqual((b.events.at(-3) as any).data, { axis: 'x', value: 32767 });
  const c = recorder();
  await scroll(c.con, { x: 1, y: 1 }, s, 'down', 3, 0);
  assert.equal(c.events.filter((e: any) => e.type === 'btn' && e.data.button === 'wheel-down' && e.data.down).length, 3);
  const d = recorder();
  await sendStrokes(d.con, [{ modifiers: ['ctrl', 'alt'], key: 'delete' }], 0);
  assert.deepEqual(d.events.map((e: any) => `${e.data.key.data}:${e.data.down}`), ['ctrl:true', 'alt:true', 'delete:true', 'delete:false', 'alt:false', 'ctrl:false']);
});
