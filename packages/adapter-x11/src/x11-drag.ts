/**
 * Drag: press, move in small steps (window managers and toolkits start a drag only after motion
 * past a threshold, and some ignore a single jump), release — through the session's XTEST
 * connection when there is one, else all in one xdotool invocation.
 */
import type { AdapterContext, MouseButton, Point } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';
import { BUTTONS } from './x11-click.ts';
import { dragThroughXTest } from './xtest-input.ts';

export function dragArgv(from: Point, to: Point, button: MouseButton, steps: number, stepDelayMs: number): string[] {
  const pause = (stepDelayMs / 1000).toFixed(3);
  const argv = ['xdotool', 'mousemove', String(from.x), String(from.y), 'mousedown', BUTTONS[button], 'sleep', pause];
  for (let i = 1; i < steps; i++) {
    const x = Math.round(from.x + ((to.x - from.x) * i) / steps);
    const y = Math.round(from.y + ((to.y - from.y) * i) / steps);
    argv.push('mousemove', String(x), String(y), 'sleep', pause);
  }
  argv.push('mousemove', String(to.x), String(to.y), 'sleep', pause, 'mouseup', BUTTONS[button]);
  return argv;
}

/** Both points are screen pixels inside the screen: core checked them. */
export async function drag(rt: X11Runtime, ctx: AdapterContext, input: { from: Point; to: Point; button: MouseButton }): Promise<void> {
  const xtest = await rt.xtest.connection(rt, ctx);
  if (xtest) return dragThroughXTest(xtest, input, rt.options.drag_steps, rt.options.drag_step_delay_ms, ctx.signal);
  const guest = await rt.guest(ctx);
  await guest.run(dragArgv(input.from, input.to, input.button, rt.options.drag_steps, rt.options.drag_step_delay_ms));
}
