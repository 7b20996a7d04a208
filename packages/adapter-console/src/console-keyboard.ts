/**
 * Keyboard through QMP `input-send-event`. Each stroke is a press (modifiers, then the key) and a
 * release in reverse order, with a short hold in between: a USB keyboard reports one change per
 * guest poll, so keys sent back-to-back without pacing can be dropped by QEMU's HID queue.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsoleHandle } from '@vmhub/core';
import type { KeyStroke } from './keymap.ts';

function keyEvent(qcode: string, down: boolean): Record<string, unknown> {
  return { type: 'key', data: { down, key: { type: 'qcode', data: qcode } } };
}

export async function sendStrokes(con: ConsoleHandle, strokes: KeyStroke[], delayMs: number, signal?: AbortSignal): Promise<void> {
  for (const s of strokes) {
    signal?.throwIfAborted();
    const downs = [...s.modifiers, s.key];
    await con.execute('input-send-event', { events: downs.map((q) => keyEvent(q, true)) });
    await sleep(delayMs);
    await con.execute('input-send-event', { events: downs.reverse().map((q) => keyEvent(q, false)) });
    await sleep(delayMs);
  }
}

/** Press or release modifier keys (for clicks with modifiers). */
export async function modifierEvents(con: ConsoleHandle, qcodes: string[], down: boolean): Promise<void> {
  if (qcodes.length === 0) return;
  const order = down ? qcodes : [...qcodes].reverse();
  await con.execute('input-send-event', { events: order.map((q) => keyEvent(q, down)) });
}
