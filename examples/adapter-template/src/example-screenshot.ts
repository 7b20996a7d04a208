/**
 * screenshot: `xwd -root -silent` in the guest (x11-apps; ~10 ms on Xvfb), decoded here to RGB.
 * Return the whole screen at its real size: core crops, scales and encodes it for the agent, and
 * maps the agent's coordinates back to screen pixels from this frame's size.
 */
import type { AdapterContext, RawScreen } from '@vmhub/core';
import type { ExampleRuntime } from './runtime.ts';
import { xwdToRgb } from './xwd.ts';

// A channel keeps 1 MiB of output unless told more: leave room for a 4K screen at 32 bpp.
const MAX_FRAME_BYTES = 3840 * 2160 * 4 + 64 * 1024;

export async function exampleScreenshot(rt: ExampleRuntime, ctx: AdapterContext): Promise<RawScreen> {
  const { stdout } = await (await rt.guest(ctx)).run(['xwd', '-root', '-silent'], { maxOutputBytes: MAX_FRAME_BYTES });
  const frame = xwdToRgb(stdout);
  rt.facts.set('screen', { width: frame.width, height: frame.height });
  return { data: frame.data, format: 'rgb', width: frame.width, height: frame.height };
}
