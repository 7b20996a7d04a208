/**
 * Close: a graceful request (wmctrl -ic sends _NET_CLOSE_WINDOW; the WM then sends
 * WM_DELETE_WINDOW), never XKillClient: the app may ask to save, and that is its right.
 */
import type { AdapterContext } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';
import { listWindowsWith, resolveWindow } from './x11-list-windows.ts';

export async function close(rt: X11Runtime, ctx: AdapterContext, input: { window: string }): Promise<{ window_id: string }> {
  const guest = await rt.guest(ctx);
  const target = resolveWindow(await listWindowsWith(guest), input.window);
  await guest.run(['wmctrl', '-ic', target.id]);
  return { window_id: target.id };
}
