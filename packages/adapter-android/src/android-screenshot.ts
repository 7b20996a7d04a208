/**
 * Screenshot: `screencap -p` — a PNG on stdout, byte-exact over shell protocol v2 (no pty, so no
 * CR LF mangling). Its size comes from the PNG header. Core hands it to the client as is when it
 * already is the asked image (PNG, whole screen, fits the box, within the byte budget: core's
 * passThrough); otherwise core decodes, crops, scales and encodes. Raw `screencap` (RGBA without
 * the device's PNG encode) is not used: it moves 10 MB a frame at 1080×2400, twice the time of
 * the PNG on the stand-in's adb transport (bench/RESULTS.md, android).
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
