/**
 * Screenshot: `xwd -root -silent` in the guest (x11-apps, ~10 ms on Xvfb), parsed here into RGB.
 * The raw dump (~4 MB at 1280×800) crosses the channel uncompressed: on a local channel copying is
 * cheaper than compressing, and core's shapeScreenshot does the scaling and encoding.
 */
import type { AdapterContext, RawScreen } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';
import { screenSize } from './x11-screen-size.ts';
import { parseXwdHeader, xwdToRgb } from './xwd.ts';
import { x11Error } from './errors.ts';

const SLACK = 64 * 1024;

export async function screenshot(rt: X11Runtime, ctx: AdapterContext): Promise<RawScreen> {
  const guest = await rt.guest(ctx);
  for (let attempt = 0; attempt < 2; attempt++) {
    const size = await screenSize(rt, ctx);
    const res = await guest.run(['xwd', '-root', '-silent'], { maxOutputBytes: size.width * size.height * 4 + SLACK });
    if (res.truncated) {
      // The screen grew since we cached its size (xrandr): learn it again and retry once.
      rt.cache.forget(ctx.lease_id, 'screen');
      continue;
    }
    const header = parseXwdHeader(res.stdout);
    if (header.width !== size.width || header.height !== size.height) rt.cache.forget(ctx.lease_id, 'screen');
    const frame = xwdToRgb(res.stdout);
    return { data: frame.data, format: 'rgb', width: frame.width, height: frame.height };
  }
  throw x11Error('INTERNAL', 'xwd output kept exceeding the screen size: the screen is changing size, retry');
}
