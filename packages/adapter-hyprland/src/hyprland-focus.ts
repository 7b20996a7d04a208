/**
 * Focus: sway `[con_id=N] focus` or Hyprland `focuswindow address:…` / `hl.dsp.focus({window=…})`,
 * then re-read the windows until the compositor reports it focused (bounded: 1 s). The returned
 * window says `focused: false` when the compositor refused.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HyprRuntime } from './runtime.ts';
import { publicWindow, readWindows, resolveWindow } from './hyprland-list-windows.ts';

export async function focus(rt: HyprRuntime, ctx: AdapterContext, input: { window: string }): Promise<WindowInfo> {
  const target = resolveWindow(await readWindows(rt, ctx), input.window);
  const comp = await rt.compositor(ctx);
  await comp.focus(await rt.guest(ctx), target.id);
  const layout = await rt.layout(ctx);
  let last = target;
  for (let i = 0; i < 10 && !ctx.signal.aborted; i++) {
    const now = (await readWindows(rt, ctx)).find((w) => w.id === target.id);
    if (!now) break;
    last = now;
    if (now.focused) break;
    await sleep(100);
  }
  return publicWindow(layout, last);
}
