/**
 * Screen size: the layout's size in screenshot pixels (layout.ts), for core's bounds checks
 * before any screenshot was taken; after one, core uses that image's size, which is the same.
 */
import type { AdapterContext } from '@vmhub/core';
import type { HyprRuntime } from './runtime.ts';

export async function screenSize(rt: HyprRuntime, ctx: AdapterContext): Promise<{ width: number; height: number }> {
  const layout = await rt.layout(ctx);
  return { ...layout.screen };
}
