/**
 * The lease's screen as the live view and the recordings show it — one path for both: the
 * adapter's capture shaped by core's shapeScreenshot (the shaping vm_screenshot uses: decode,
 * scale to fit, encode), never touching the agent's own screen mapping (its coordinates stay its
 * own).
 */
import type { RawScreen } from '@vmhub/core';
import { MAX_SIDE, shapePixels, shapeScreenshot, type RegionPixels, type ShapedScreenshot } from '@vmhub/core/screenshot';

/** The largest image the live view or a recording takes. */
const MAX_BYTES = 16 * 1024 * 1024;

/** `raw` as an image at most `maxWidth` wide. */
export function liveImage(raw: RawScreen, format: 'png' | 'jpeg', maxWidth: number): Promise<ShapedScreenshot> {
  return shapeScreenshot(raw, { format, maxWidth, maxHeight: MAX_SIDE, maxBytes: MAX_BYTES });
}

/** Decoded pixels (the live stream's latest capture) shaped the same way. */
export function livePixels(px: RegionPixels, format: 'png' | 'jpeg', maxWidth: number): Promise<ShapedScreenshot> {
  return shapePixels(px, { format, maxWidth, maxHeight: MAX_SIDE, maxBytes: MAX_BYTES });
}
