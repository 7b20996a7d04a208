/**
 * drag: press at `from`, move in `drag_steps` steps, release at `to` — released even on error or
 * when the call is cancelled between steps.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdapterContext, MouseButton, Point } from '@vmhub/core';
import { cancelled } from './errors.ts';
import { buttonEvent, moveEvents } from './input.ts';
import { screenSize } from './console-screen-size.ts';
import type { ConsoleState } from './runtime.ts';

/** `from` and `to` are in screen pixels inside the screen (core checked). */
export async function drag(s: ConsoleState, ctx: AdapterContext, input: { from: Point; to: Point; button: MouseButton }): Promise<void> {
  const { from, to } = input;
  const screen = await screenSize(s, ctx);
  const con = await ctx.console();
  await con.execute('input-send-event', { events: moveEvents(from, screen) });
  await sleep(s.pointerDelayMs);
  await con.execute('input-send-event', { events: [buttonEvent(input.button, true)] });
  try {
    for (let i = 1; i <= s.dragSteps; i++) {
      await sleep(s.pointerDelayMs);
      if (ctx.signal.aborted) throw cancelled('drag', `stopped after ${i - 1} of ${s.dragSteps} steps (button released)`);
      const p = { x: from.x + ((to.x - from.x) * i) / s.dragSteps, y: from.y + ((to.y - from.y) * i) / s.dragSteps };
      await con.execute('input-send-event', { events: moveEvents(p, screen) });
    }
    await sleep(s.pointerDelayMs);
  } finally {
    await con.execute('input-send-event', { events: [buttonEvent(input.button, false)] });
  }
}
