/** vm_scroll: Scroll (early: Scroll-Tool) at the point, `amount` wheel notches. */
import type { AdapterContext } from '@vmhub/core';
import { loc, type WinRuntime } from './runtime.ts';

export async function scroll(rt: WinRuntime, ctx: AdapterContext, input: { x: number; y: number; direction: 'up' | 'down' | 'left' | 'right'; amount: number }): Promise<void> {
  const tool = await rt.mcp.need(ctx, 'scroll', 'vm_scroll');
  const type = input.direction === 'up' || input.direction === 'down' ? 'vertical' : 'horizontal';
  await rt.mcp.call(ctx, tool, { loc: loc(rt, input), type, direction: input.direction, wheel_times: input.amount });
  rt.pointer = { x: input.x, y: input.y };
}
