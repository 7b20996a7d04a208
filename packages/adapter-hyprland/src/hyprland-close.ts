/**
 * Close: a graceful request — sway `[con_id=N] kill` and Hyprland `closewindow` both send the
 * client xdg_toplevel.close (the app may ask to save); never a kill of its process.
 */
import type { AdapterContext } from '@vmhub/core';
import type { HyprRuntime } from './runtime.ts';
import { readWindows, resolveWindow } from './hyprland-list-windows.ts';

export async function close(rt: HyprRuntime, ctx: AdapterContext, input: { window: string }): Promise<{ window_id: string }> {
  const target = resolveWindow(await readWindows(rt, ctx), input.window);
  const comp = await rt.compositor(ctx);
  await comp.close(await rt.guest(ctx), target.id);
  return { window_id: target.id };
}
