/**
 * screenSize: the screen as the lease's last screendump showed it, else a fresh screendump. Core
 * calls it to check points before any screenshot was taken; the pointer capabilities scale the
 * tablet's axes to it. Bounds are core's: points arrive inside the screen.
 */
import type { AdapterContext } from '@vmhub/core';
import { screenshot } from './console-screenshot.ts';
import type { ConsoleState, Screen } from './runtime.ts';

export async function screenSize(s: ConsoleState, ctx: AdapterContext): Promise<Screen> {
  if (s.screen) return s.screen;
  const raw = await screenshot(s, ctx);
  return { width: raw.width, height: raw.height };
}
