/**
 * Screenshot: from the provider's host framebuffer file when the lease has one
 * (framebuffer.ts: no guest process); else `xwd -root -silent` in the guest (x11-apps, ~10 ms on Xvfb), parsed here into RGB.
 * The dump (~4 MB at 1280×800) is gzip'ed in the guest by default: through provider-docker's
 * exec helper the raw frame took 107 ms to cross, `xwd | gzip -1` + gunzip 66 ms (p50, 1280×800,
 * loaded 2-core host). core's shapeScreenshot does the scaling and encoding.
 */
import { gunzipSync } from 'node:zlib';
import type { AdapterContext, RawScreen, ScreenshotOptions } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';
import { framebufferOf, readXwdFrame } from './framebuffer.ts';
import { screenSize } from './x11-screen-size.ts';
import { parseXwdHeader, xwdToRgb } from './xwd.ts';
import { x11Error } from './errors.ts';

const SLACK = 64 * 1024;
// A pipeline reports gzip's status: an xwd failure shows as an empty frame plus xwd's stderr.
const GZIP_CAPTURE = 'xwd -root -silent | gzip -1';

export async function screenshot(rt: X11Runtime, ctx: AdapterContext, options?: ScreenshotOptions): Promise<RawScreen> {
  const fb = await framebufferOf(rt, ctx);
  // The live view's frames take one read (it may tear: the stream's next frame follows).
  const frame = fb ? await readXwdFrame(fb.path, xwdToRgb, rt.frameBuffers, options?.live ? 1 : undefined) : undefined;
  if (frame) return { data: frame.data, format: 'rgb', width: frame.width, height: frame.height };
  const guest = await rt.guest(ctx);
  for (let attempt = 0; attempt < 2; attempt++) {
    const size = await screenSize(rt, ctx);
    const limit = size.width * size.height * 4 + SLACK;
    const res = rt.options.screenshot_gzip
      ? await guest.sh(GZIP_CAPTURE, [], { maxOutputBytes: limit, needs: ['xwd', 'gzip'] })
      : await guest.run(['xwd', '-root', '-silent'], { maxOutputBytes: limit });
    let dump: Buffer;
    try {
      dump = rt.options.screenshot_gzip ? gunzipSync(res.stdout, { maxOutputLength: limit }) : res.stdout;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw err;
      rt.facts.forget('screen');
      continue;
    }
    if (dump.length === 0) {
      const why = res.stderr.toString('utf8').trim();
      throw x11Error('INTERNAL', `xwd captured nothing on ${rt.options.display}${why ? `: ${why.slice(0, 300)}` : ''}: is the X display up?`);
    }
    if (res.truncated || dump.length >= limit) {
      // The screen grew since we cached its size (xrandr): learn it again and retry once.
      rt.facts.forget('screen');
      continue;
    }
    const header = parseXwdHeader(dump);
    if (header.width !== size.width || header.height !== size.height) rt.facts.forget('screen');
    const frame = xwdToRgb(dump);
    return { data: frame.data, format: 'rgb', width: frame.width, height: frame.height };
  }
  throw x11Error('INTERNAL', 'xwd output kept exceeding the screen size: the screen is changing size, retry');
}
