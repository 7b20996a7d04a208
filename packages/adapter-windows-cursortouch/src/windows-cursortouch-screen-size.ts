/** The desktop size, for bounds checks before any vm_screenshot: the latest one's, else one taken now. */
import type { AdapterContext } from '@vmhub/core';
import type { WinRuntime } from './runtime.ts';
import { screenshot } from './windows-cursortouch-screenshot.ts';

export async function screenSize(rt: WinRuntime, ctx: AdapterContext): Promise<{ width: number; height: number }> {
  if (!rt.screen) await screenshot(rt, ctx);
  return rt.screen!;
}
