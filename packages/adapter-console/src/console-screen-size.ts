/**
 * screenSize and the on-screen check every pointer capability runs first. The size comes from the
 * lease's last screendump, else a fresh one; a point outside it triggers one fresh capture (the
 * guest may have switched mode, e.g. text console → graphics) before the point is refused.
 */
import { assertOnScreen, type AdapterContext, type Point } from '@vmhub/core';
import { screenshot } from './console-screenshot.ts';
import type { ConsoleRuntime, Screen } from './console-runtime.ts';

export async function screenSize(rt: ConsoleRuntime, ctx: AdapterContext): Promise<Screen> {
  const known = rt.screens.get(ctx.lease_id);
  if (known) return known;
  const raw = await screenshot(rt, ctx);
  return { width: raw.width, height: raw.height };
}

export async function onScreen(rt: ConsoleRuntime, ctx: AdapterContext, p: Point, field: string): Promise<{ screen: Screen; point: Point }> {
  let screen = await screenSize(rt, ctx);
  if (p.x >= screen.width || p.y >= screen.height) {
    rt.screens.delete(ctx.lease_id);
    screen = await screenSize(rt, ctx);
  }
  return { screen, point: assertOnScreen(p, screen, field) };
}
