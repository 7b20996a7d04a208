/**
 * Click: through XTEST in process when the provider shares the X socket; else one xdotool
 * invocation — move, press modifiers, click N times, release them — so a click costs a single guest command (the vm_click p50 target is 20 ms end to end). No
 * `mousemove --sync`: it waits for the pointer to MOVE and hangs when it is already there; the X
 * server applies XTest events in order, so the click lands at the new position anyway.
 */
import type { AdapterContext, Modifier, MouseButton, Point } from '@vmhub/core';
import { MODIFIER_KEYSYMS } from './keys.ts';
import type { X11Runtime } from './runtime.ts';
import { clickThroughXTest } from './xtest-input.ts';

export const BUTTONS: Readonly<Record<MouseButton, string>> = { left: '1', middle: '2', right: '3' };

export function clickArgv(p: Point, button: MouseButton, count: number, modifiers: Modifier[], delayMs: number): string[] {
  const mods = [...new Set(modifiers)].map((m) => MODIFIER_KEYSYMS[m]);
  const b = BUTTONS[button];
  // mousedown/mouseup, not `click`: xdotool's click sleeps its --delay (default 100 ms) after the
  // LAST click too, which alone would blow the 20 ms budget.
  const clicks: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) clicks.push('sleep', (delayMs / 1000).toFixed(3));
    clicks.push('mousedown', b, 'mouseup', b);
  }
  return [
    'xdotool', 'mousemove', String(p.x), String(p.y),
    ...mods.flatMap((m) => ['keydown', m]),
    ...clicks,
    ...mods.reverse().flatMap((m) => ['keyup', m]),
  ];
}

/**
 * The point is screen pixels inside the screen and count 1–3: core checked both. Through the
 * session's XTEST connection when the provider shares the X socket (xtest-input.ts), else
 * one xdotool command in the guest.
 */
export async function click(rt: X11Runtime, ctx: AdapterContext, input: Point & { button: MouseButton; count: number; modifiers: Modifier[] }): Promise<void> {
  const xtest = await rt.xtest.connection(rt, ctx);
  if (xtest && await clickThroughXTest(xtest, input, rt.options.click_delay_ms, ctx.signal)) return;
  const guest = await rt.guest(ctx);
  await guest.run(clickArgv(input, input.button, input.count, input.modifiers, rt.options.click_delay_ms));
}
