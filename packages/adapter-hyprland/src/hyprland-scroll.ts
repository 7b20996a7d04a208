/**
 * Scroll: move to the point, then `amount` wheel notches (axis_discrete, 15 units each, as a
 * mouse wheel sends) — one virtual-pointer run. Vertical axis 0, horizontal 1; down/right positive.
 */
import type { AdapterContext, Point } from '@vmhub/core';
import type { HyprRuntime } from './runtime.ts';
import { moveOp, playPointer } from './vpointer.ts';

const AXIS = { up: ['0', -1], down: ['0', 1], left: ['1', -1], right: ['1', 1] } as const;

export async function scroll(rt: HyprRuntime, ctx: AdapterContext, input: Point & { direction: keyof typeof AXIS; amount: number }): Promise<void> {
  const layout = await rt.layout(ctx);
  const [axis, sign] = AXIS[input.direction];
  const ops = moveOp(layout, input);
  for (let i = 0; i < input.amount; i++) ops.push('sleep', '15', 'wheel', axis, String(sign));
  await playPointer(rt, ctx, ops);
}
