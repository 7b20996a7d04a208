/**
 * scroll: move the tablet to the point, then `amount` wheel-button presses in the direction; a
 * cancelled call stops between presses.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdapterContext, Point } from '@vmhub/core';
import { cancelled } from './errors.ts';
import { buttonEvent, moveEvents } from './input.ts';
import { screenSize } from './console-screen-size.ts';
import type { ConsoleState } from './runtime.ts';

const WHEEL = { up: 'wheel-up', down: 'wheel-down', left: 'wheel-left', right: 'wheel-right' } as const;

/** `input` is in screen pixels inside the screen (core checked). */
export async function scroll(s: ConsoleState, ctx: AdapterContext, input: Point & { direction: keyof typeof WHEEL; amount: number }): Promise<void> {
  const screen = await screenSize(s, ctx);
  const con = await ctx.console();
  await con.execute('input-send-event', { events: moveEvents(input, screen) });
  for (let i = 0; i < input.amount; i++) {
    await sleep(s.pointerDelayMs);
    if (ctx.signal.aborted) throw cancelled('scroll', `stopped after ${i} of ${input.amount} wheel steps`);
    await con.execute('input-send-event', { events: [buttonEvent(WHEEL[input.direction], true)] });
    await sleep(s.pointerDelayMs);
    await con.execute('input-send-event', { events: [buttonEvent(WHEEL[input.direction], false)] });
  }
}
