/**
 * Scroll: X wheel buttons (4 up, 5 down, 6 left, 7 right) clicked `amount` times at the point,
 * through the session's XTEST connection when there is one, else xdotool in the guest.
 */
import type { AdapterContext, Point } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';
import { scrollThroughXTest } from './xtest-input.ts';

const WHEEL = { up: '4', down: '5', left: '6', right: '7' } as const;

/** The point is screen pixels inside the screen and amount 1–50: core checked both. */
export async function scroll(rt: X11Runtime, ctx: AdapterContext, input: Point & { direction: keyof typeof WHEEL; amount: number }): Promise<void> {
  const xtest = await rt.xtest.connection(rt, ctx);
  if (xtest) return scrollThroughXTest(xtest, { x: input.x, y: input.y, button: Number(WHEEL[input.direction]), amount: input.amount }, ctx.signal);
  const guest = await rt.guest(ctx);
  await guest.run(['xdotool', 'mousemove', String(input.x), String(input.y), 'click', '--repeat', String(input.amount), '--delay', '15', WHEEL[input.direction]]);
}
