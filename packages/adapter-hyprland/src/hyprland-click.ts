/**
 * Click: one virtual-pointer run (vpointer.ts) — move to the point, press and release N times —
 * with modifiers held by a virtual keyboard meanwhile. The point is screen pixels inside the
 * screen and count 1–3 (core checked both).
 */
import type { AdapterContext, Modifier, MouseButton, Point } from '@vmhub/core';
import type { HyprRuntime } from './runtime.ts';
import { BUTTON_CODES, moveOp, playPointer } from './vpointer.ts';
import type { Layout } from './layout.ts';

export function clickOps(layout: Layout, p: Point, button: MouseButton, count: number, delayMs: number): string[] {
  const b = String(BUTTON_CODES[button]);
  const ops = moveOp(layout, p);
  for (let i = 0; i < count; i++) {
    if (i > 0) ops.push('sleep', String(delayMs));
    ops.push('down', b, 'up', b);
  }
  return ops;
}

export async function click(rt: HyprRuntime, ctx: AdapterContext, input: Point & { button: MouseButton; count: number; modifiers: Modifier[] }): Promise<void> {
  const layout = await rt.layout(ctx);
  await playPointer(rt, ctx, clickOps(layout, input, input.button, input.count, rt.options.click_delay_ms), input.modifiers);
}
