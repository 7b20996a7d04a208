/**
 * Screenshot: `screencap -p` — a PNG on stdout, byte-exact over shell protocol v2 (no pty, so no
 * CR LF mangling). Its size comes from the PNG header; core decodes, scales and encodes.
 */
import type { AdapterContext, RawScreen } from '@vmhub/core';
import { pngSize } from './png.ts';
import type { AndroidRuntime } from './runtime.ts';

/** A PNG of a 4K screen stays far below this. */
const MAX_PNG = 64 * 1024 * 1024;

export async function screenshot(rt: AndroidRuntime, ctx: AdapterContext): Promise<RawScreen> {
  const device = await rt.device(ctx);
  const res = await device.run(['screencap', '-p'], { maxOutputBytes: MAX_PNG });
  const size = pngSize(res.stdout);
  // The screen is what screencap shows: keep the session's size in step (rotation, wm size).
  rt.facts.set('screen', size);
  return { data: res.stdout, format: 'png', width: size.width, height: size.height };
}
