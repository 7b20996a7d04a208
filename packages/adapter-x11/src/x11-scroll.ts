/** Scroll: X wheel buttons (4 up, 5 down, 6 left, 7 right) clicked `amount` times at the point. */
import type { AdapterContext, Point } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';
import { onScreen } from './x11-screen-size.ts';

const WHEEL = { up: '4', down: '5', left: '6', right: '7' } as const;

export async function scroll(rt: X11Runtime, ctx: AdapterContext, input: Point & { direction: keyof typeof WHEEL; amount: number }): Promise<void> {
  const p = await onScreen(rt, ctx, input, 'scroll point');
  const amount = Math.min(50, Math.max(1, Math.floor(input.amount ?? 3)));
  const guest = await rt.guest(ctx);
  await guest.run(['xdotool', 'mousemove', String(p.x), String(p.y), 'click', '--repeat', String(amount), '--delay', '15', WHEEL[input.direction]]);
}
