/**
 * Screen size from `xwininfo -root`, learned once per session: core checks coordinates against it
 * before any screenshot was taken (session.screenSize()), and a screenshot sizes its output cap
 * with it. A screenshot that finds the screen resized forgets it (x11-screenshot.ts).
 */
import type { AdapterContext } from '@vmhub/core';
import type { Guest } from './guest.ts';
import { x11Error } from './errors.ts';
import type { X11Runtime } from './runtime.ts';

export interface Size { width: number; height: number }

export async function readScreenSize(guest: Guest): Promise<Size> {
  const res = await guest.run(['xwininfo', '-root']);
  return parseXwininfoSize(res.stdout.toString('utf8'));
}

export function parseXwininfoSize(text: string): Size {
  const width = Number(/^\s*Width:\s*(\d+)/m.exec(text)?.[1]);
  const height = Number(/^\s*Height:\s*(\d+)/m.exec(text)?.[1]);
  if (!(width > 0 && height > 0)) throw x11Error('INTERNAL', `could not read the screen size from xwininfo -root: ${text.slice(0, 200)}`);
  return { width, height };
}

export function screenSize(rt: X11Runtime, ctx: AdapterContext): Promise<Size> {
  // Shared by concurrent calls of the session: when the call that started the lookup was
  // cancelled and this one was not, the kit looks again (the signal tells it which).
  return rt.facts.remember('screen', async () => readScreenSize(await rt.guest(ctx)), ctx.signal);
}
