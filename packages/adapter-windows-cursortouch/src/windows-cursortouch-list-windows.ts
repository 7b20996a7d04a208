/** vm_list_windows: the windows a quick Snapshot (no image, no UI tree) lists. */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { windows, type WinRuntime } from './runtime.ts';

export function listWindows(rt: WinRuntime, ctx: AdapterContext): Promise<WindowInfo[]> {
  return windows(rt, ctx);
}
