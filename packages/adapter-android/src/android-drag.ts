/** Drag: one `input swipe x1 y1 x2 y2 <drag_ms>` (a slow swipe, so views see a drag, not a fling). */
import type { AdapterContext, MouseButton, Point } from '@vmhub/core';
import { androidError } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';

export async function drag(rt: AndroidRuntime, ctx: AdapterContext, input: { from: Point; to: Point; button: MouseButton }): Promise<void> {
  if (input.button !== 'left') throw androidError('INVALID_REQUEST', `a touch drag has no "${input.button}" button: use "left"`);
  const device = await rt.device(ctx);
  const p = [input.from.x, input.from.y, input.to.x, input.to.y].map((v) => String(Math.round(v)));
  await device.run(['input', 'swipe', ...p, String(rt.options.drag_ms)]);
}
