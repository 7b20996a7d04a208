/**
 * List windows: sway's tree or Hyprland's mapped clients (compositor.ts), geometry converted to
 * screen pixels of the latest screenshot's layout, so a window's rect is where the agent sees it.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import type { WaylandWindow } from './compositor.ts';
import { pickWindow } from '@vmhub/core/adapter-kit';
import { errors } from './errors.ts';
import { toScreenRect, type Layout } from './layout.ts';
import type { HyprRuntime } from './runtime.ts';

export async function readWindows(rt: HyprRuntime, ctx: AdapterContext): Promise<WaylandWindow[]> {
  const comp = await rt.compositor(ctx);
  return comp.windows(await rt.guest(ctx));
}

export function publicWindow(layout: Layout, w: WaylandWindow): WindowInfo {
  return { id: w.id, title: w.title, class: w.class, ...toScreenRect(layout, w), focused: w.focused, visible: w.visible };
}

export async function listWindows(rt: HyprRuntime, ctx: AdapterContext): Promise<WindowInfo[]> {
  const [windows, layout] = await Promise.all([readWindows(rt, ctx), rt.layout(ctx)]);
  return windows.map((w) => publicWindow(layout, w));
}

/** Find one window by id (any case) or exact title. */
export function resolveWindow(windows: WaylandWindow[], ref: string): WaylandWindow {
  return pickWindow(windows, ref, errors, (w) => w.id === ref || w.id.toLowerCase() === ref.toLowerCase());
}
