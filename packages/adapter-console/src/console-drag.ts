/**
 * drag: press at `from`, move in `drag_steps` steps, release at `to` — released even on error or
 * when the call is cancelled between steps.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdapterContext, MouseButton, Point } from '@vmhub/core';
import { cancelled } from './cancel.ts';
import { buttonEvent, moveEvents } from './console-input.ts';
import { onScreen } from './console-screen-size.ts';
import type { ConsoleRuntime } from './console-runtime.ts';

export async function drag(rt: ConsoleRuntime, ctx: AdapterContext, input: { from: Point; to: Point; button: MouseButton }): Promise<void> {
  const from = (await onScreen(rt, ctx, input.from, 'from')).point;
  const { screen, point: to } = await onScreen(rt, ctx, input.to, 'to');
  const con = await ctx.console();
  await con.execute('input-send-event', { events: moveEvents(from, screen) });
  await sleep(rt.pointerDelayMs);
  await con.execute('input-send-event', { events: [buttonEvent(input.button, true)] });
  try {
    for (let i = 1; i <= rt.dragSteps; i++) {
      await sleep(rt.pointerDelayMs);
      if (ctx.signal.aborted) throw cancelled('drag', `stopped after ${i - 1} of ${rt.dragSteps} steps (button released)`);
      const p = { x: from.x + ((to.x - from.x) * i) / rt.dragSteps, y: from.y + ((to.y - from.y) * i) / rt.dragSteps };
      await con.execute('input-send-event', { events: moveEvents(p, screen) });
    }
    await sleep(rt.pointerDelayMs);
  } finally {
    await con.execute('input-send-event', { events: [buttonEvent(input.button, false)] });
  }
}
