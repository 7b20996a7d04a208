/**
 * Drag: press, move in small steps (toolkits start a drag only after motion past a threshold,
 * and some ignore a single jump), release — one virtual-pointer run. Both points are screen
 * pixels inside the screen (core checked).
 */
import type { AdapterContext, MouseButton, Point } from '@vmhub/core';
import type { Layout } from './layout.ts';
import type { HyprRuntime } from './runtime.ts';
import { BUTTON_CODES, moveOp, playPointer } from './vpointer.ts';

export function dragOps(layout: Layout, from: Point, to: Point, button: MouseButton, steps: number, stepDelayMs: number): string[] {
  const b = String(BUTTON_CODES[button]);
  const pause = String(stepDelayMs);
  const ops = [...moveOp(layout, from), 'down', b, 'sleep', pause];
  for (let i = 1; i <= steps; i++) {
    const p = { x: Math.round(from.x + ((to.x - from.x) * i) / steps), y: Math.round(from.y + ((to.y - from.y) * i) / steps) };
    ops.push(...moveOp(layout, p), 'sleep', pause);
  }
  ops.push('up', b);
  return ops;
}

export async function drag(rt: HyprRuntime, ctx: AdapterContext, input: { from: Point; to: Point; button: MouseButton }): Promise<void> {
  const layout = await rt.layout(ctx);
  await playPointer(rt, ctx, dragOps(layout, input.from, input.to, input.button, rt.options.drag_steps, rt.options.drag_step_delay_ms));
}
