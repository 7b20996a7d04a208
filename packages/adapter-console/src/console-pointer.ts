/**
 * Absolute pointer through QMP `input-send-event` on the USB tablet: screen pixels become the
 * tablet's 0..32767 axes; wheel turns are button presses (wheel-up/down/left/right).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsoleHandle, Modifier, MouseButton, Point } from '@vmhub/core';
import { modifierEvents } from './console-keyboard.ts';

const ABS_MAX = 32767;
const MOD_QCODE: Record<Modifier, string> = { ctrl: 'ctrl', shift: 'shift', alt: 'alt', super: 'meta_l' };

export interface Screen { width: number; height: number }

export function toAbs(p: Point, screen: Screen): { x: number; y: number } {
  const scale = (v: number, size: number): number => (size <= 1 ? 0 : Math.round((Math.min(Math.max(v, 0), size - 1) * ABS_MAX) / (size - 1)));
  return { x: scale(p.x, screen.width), y: scale(p.y, screen.height) };
}

function move(p: Point, screen: Screen): Record<string, unknown>[] {
  const a = toAbs(p, screen);
  return [{ type: 'abs', data: { axis: 'x', value: a.x } }, { type: 'abs', data: { axis: 'y', value: a.y } }];
}

function btn(button: string, down: boolean): Record<string, unknown> {
  return { type: 'btn', data: { down, button } };
}

export async function click(con: ConsoleHandle, p: Point, screen: Screen, button: MouseButton, count: number, modifiers: Modifier[], delayMs: number): Promise<void> {
  const mods = modifiers.map((m) => MOD_QCODE[m]);
  await con.execute('input-send-event', { events: move(p, screen) });
  await sleep(delayMs);
  await modifierEvents(con, mods, true);
  try {
    for (let i = 0; i < count; i++) {
      await con.execute('input-send-event', { events: [btn(button, true)] });
      await sleep(delayMs);
      await con.execute('input-send-event', { events: [btn(button, false)] });
      await sleep(delayMs);
    }
  } finally {
    await modifierEvents(con, mods, false);
  }
}

export async function drag(con: ConsoleHandle, from: Point, to: Point, screen: Screen, button: MouseButton, steps: number, delayMs: number): Promise<void> {
  await con.execute('input-send-event', { events: move(from, screen) });
  await sleep(delayMs);
  await con.execute('input-send-event', { events: [btn(button, true)] });
  try {
    for (let i = 1; i <= steps; i++) {
      await sleep(delayMs);
      const p = { x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps };
      await con.execute('input-send-event', { events: move(p, screen) });
    }
    await sleep(delayMs);
  } finally {
    await con.execute('input-send-event', { events: [btn(button, false)] });
  }
}

const WHEEL = { up: 'wheel-up', down: 'wheel-down', left: 'wheel-left', right: 'wheel-right' } as const;

export async function scroll(con: ConsoleHandle, p: Point, screen: Screen, direction: keyof typeof WHEEL, amount: number, delayMs: number): Promise<void> {
  await con.execute('input-send-event', { events: move(p, screen) });
  for (let i = 0; i < amount; i++) {
    await sleep(delayMs);
    await con.execute('input-send-event', { events: [btn(WHEEL[direction], true)] });
    await sleep(delayMs);
    await con.execute('input-send-event', { events: [btn(WHEEL[direction], false)] });
  }
}
