/** Close: press the window's close button (AXCloseButton) through System Events. */
import type { AdapterContext } from '@vmhub/core';
import { osaClose } from './in-guest.ts';
import { findWindow } from './macos-list-windows.ts';
import type { MacosRuntime } from './runtime.ts';

export async function close(rt: MacosRuntime, ctx: AdapterContext, input: { window: string }): Promise<{ window_id: string }> {
  const w = await findWindow(rt, ctx, input.window, 'close');
  await osaClose(rt, ctx, w);
  return { window_id: w.id };
}
