/**
 * Screenshot: from the shared framebuffer where the provider has one (capture.ts: a kept
 * capture helper in the guest, no guest process per call, the layout kept until an output
 * changes); else `grim -t png -` (wlr-screencopy; sway and Hyprland both serve it) — the whole
 * layout at the highest output scale, or one output (option `output`) at its own scale: physical
 * pixels (layout.ts). The layout is read first and kept for the session, so the input actions
 * that follow map the agent's pixels with the geometry this very image was taken with. PNG at
 * compression level 1: a third of level 6's time for a frame twice the size, still ~10× smaller
 * than raw PPM over the channel.
 */
import type { AdapterContext, RawScreen, ScreenshotOptions } from '@vmhub/core';
import { sharedFrame } from './capture.ts';
import { hyprError } from './errors.ts';
import type { HyprRuntime } from './runtime.ts';

export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.length < 24 || png.readUInt32BE(0) !== 0x89504e47 || png.toString('latin1', 12, 16) !== 'IHDR') {
    throw hyprError('INTERNAL', `grim did not produce a PNG (${png.length} bytes): is the compositor up and does it offer wlr-screencopy?`);
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export async function screenshot(rt: HyprRuntime, ctx: AdapterContext, options?: ScreenshotOptions): Promise<RawScreen> {
  const shared = await sharedFrame(rt, ctx, options);
  if (shared) return shared;
  const layout = await rt.refreshLayout(ctx);
  const guest = await rt.guest(ctx);
  const argv = ['grim', '-l', '1', '-t', 'png', ...(layout.output ? ['-o', layout.output] : []), '-'];
  const res = await guest.run(argv, { maxOutputBytes: 64 * 1024 * 1024, label: 'grim' });
  const size = pngSize(res.stdout);
  // grim rounds the layout × scale itself; the image is the truth for the screen size.
  layout.screen = size;
  return { data: res.stdout, format: 'png', width: size.width, height: size.height };
}
