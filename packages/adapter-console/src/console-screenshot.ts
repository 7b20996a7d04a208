/** screenshot: the raw frame from the provider's console (QMP screendump, PNG); core shapes it. */
import type { AdapterContext, RawScreen } from '@vmhub/core';
import type { ConsoleRuntime } from './console-runtime.ts';

export async function screenshot(rt: ConsoleRuntime, ctx: AdapterContext): Promise<RawScreen> {
  const raw = await (await ctx.console()).screendump();
  rt.screens.set(ctx.lease_id, { width: raw.width, height: raw.height });
  return raw;
}
