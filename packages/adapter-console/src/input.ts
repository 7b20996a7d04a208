/**
 * QMP `input-send-event` building blocks shared by the keyboard and pointer capabilities. Each
 * key stroke is a press (modifiers, then the key) and a release in reverse order, with a short
 * hold in between: a USB keyboard reports one change per guest poll, so keys sent back-to-back
 * without pacing overflow QEMU's 16-entry HID queue and are dropped. A cancelled call stops
 * between strokes, never between a press and its release: nothing is left held.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsoleHandle, Point } from '@vmhub/core';
import { cancelled } from './errors.ts';
import type { KeyStroke } from './keys.ts';
import type { Screen } from './runtime.ts';

const ABS_MAX = 32767;

export function keyEvent(qcode: string, down: boolean): Record<string, unknown> {
  return { type: 'key', data: { down, key: { type: 'qcode', data: qcode } } };
}

export async function sendStrokes(con: ConsoleHandle, strokes: KeyStroke[], delayMs: number, signal?: AbortSignal): Promise<void> {
  for (const [i, s] of strokes.entries()) {
    if (signal?.aborted) throw cancelled('keyboard input', i === 0 ? 'not started' : `stopped after ${i} of ${strokes.length} key strokes (none left held)`);
    const downs = [...s.modifiers, s.key];
    await con.execute('input-send-event', { events: downs.map((q) => keyEvent(q, true)) });
    // No abort check until the release went out: a held key auto-repeats, a held modifier
    // changes every later key.
    await sleep(delayMs);
    await con.execute('input-send-event', { events: downs.reverse().map((q) => keyEvent(q, false)) });
    await sleep(delayMs);
  }
}

/** Press or release modifier keys (held around a click). */
export async function modifierEvents(con: ConsoleHandle, qcodes: string[], down: boolean): Promise<void> {
  if (qcodes.length === 0) return;
  const order = down ? qcodes : [...qcodes].reverse();
  await con.execute('input-send-event', { events: order.map((q) => keyEvent(q, down)) });
}

/** Screen pixels → the USB tablet's 0..32767 axes. */
export function toAbs(p: Point, screen: Screen): { x: number; y: number } {
  const scale = (v: number, size: number): number => (size <= 1 ? 0 : Math.round((Math.min(Math.max(v, 0), size - 1) * ABS_MAX) / (size - 1)));
  return { x: scale(p.x, screen.width), y: scale(p.y, screen.height) };
}

export function moveEvents(p: Point, screen: Screen): Record<string, unknown>[] {
  const a = toAbs(p, screen);
  return [{ type: 'abs', data: { axis: 'x', value: a.x } }, { type: 'abs', data: { axis: 'y', value: a.y } }];
}

export function buttonEvent(button: string, down: boolean): Record<string, unknown> {
  return { type: 'btn', data: { down, button } };
}
