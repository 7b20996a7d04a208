/** Focus: make the window's app frontmost and raise the window (System Events, AXRaise). */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { osaFocus, osaListWindows } from './in-guest.ts';
import { findWindow } from './macos-list-windows.ts';
import type { MacosRuntime } from './runtime.ts';

const SETTLE_MS = 3000;

export async function focus(rt: MacosRuntime, ctx: AdapterContext, input: { window: string }): Promise<WindowInfo> {
  const w = await findWindow(rt, ctx, input.window, 'focus');
  await osaFocus(rt, ctx, w);
  // The raise is asynchronous: wait (bounded) until the window is reported in front.
  const until = Date.now() + SETTLE_MS;
  let front = w;
  while (Date.now() < until && !ctx.signal.aborted) {
    const now = (await osaListWindows(rt, ctx)).find((x) => x.pid === w.pid && x.focused);
    if (now) { front = now; break; }
    await new Promise((r) => setTimeout(r, 100));
  }
  const { pid: _p, index: _i, ...info } = front;
  return info;
}
