/**
 * screenshot: the raw frame from the provider's console (QMP screendump, PNG); core shapes it.
 * Its size is remembered on the session: the pointer is scaled to the screen the lease last saw.
 */
import type { AdapterContext, RawScreen } from '@vmhub/core';
import type { ConsoleState } from './runtime.ts';

export async function screenshot(s: ConsoleState, ctx: AdapterContext): Promise<RawScreen> {
  const raw = await (await ctx.console()).screendump();
  s.screen = { width: raw.width, height: raw.height };
  return raw;
}
