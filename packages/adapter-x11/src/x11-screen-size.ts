/** Screen size from `xwininfo -root`, cached per lease (bounds checks before every pointer action). */
import { assertOnScreen, type AdapterContext } from '@vmhub/core';
import type { Guest } from './guest.ts';
import { isCancellation, x11Error } from './errors.ts';
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

export async function screenSize(rt: X11Runtime, ctx: AdapterContext): Promise<Size> {
  const load = () => rt.cache.remember(ctx.lease_id, 'screen', async () => readScreenSize(await rt.guest(ctx)));
  try {
    return await load();
  } catch (err) {
    // The lookup is shared by concurrent calls of the lease: if the call that started it was
    // cancelled, this one was not — the failed lookup is already forgotten, so look again.
    if (isCancellation(err) && !ctx.signal.aborted) return load();
    throw err;
  }
}

/** Reject (never clamp) a point off the screen, naming the field. */
export async function onScreen(rt: X11Runtime, ctx: AdapterContext, point: { x: number; y: number }, field: string): Promise<{ x: number; y: number }> {
  const size = await screenSize(rt, ctx);
  if (!Number.isFinite(point.x) || !Number.isFinite(point.y)) throw x11Error('INVALID_REQUEST', `${field} must be finite numbers`);
  try {
    return assertOnScreen(point, size, field);
  } catch (err) {
    throw x11Error('INVALID_REQUEST', (err as Error).message, { details: { ...point, screen: size } });
  }
}
