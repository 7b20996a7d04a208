/**
 * The metadata Windows-MCP writes before a screenshot image, parsed into the mapping between
 * the image it sent and its own coordinate space (virtual-desktop pixels, what Click/Move take):
 *
 *   Cursor Position: (x,y)
 *   Screenshot Size: (W,H)                         — not downscaled
 *   Screenshot Original Size: (W,H)                — downscaled to fit 1920×1080 × WINDOWS_MCP_SCREENSHOT_SCALE…
 *   Screenshot Coordinate Scale: S — multiply …    — …screen = image × S
 *   Screenshot Coordinate Transform: screen = (ox + image_x × S, oy + image_y × S)   — non-zero origin
 *
 * Sizes appear as "(W,H)" or "WxH" across releases; both parse. The format has changed often,
 * so every field is optional and the caller falls back to the image's own size.
 */

export interface ScreenText {
  /** Desktop pixels the image covers (its original size), when stated. */
  size?: { width: number; height: number };
  /** Desktop pixels per image pixel (≥ 1 when downscaled), when stated. */
  scale?: number;
  /** Desktop point at the image's top-left, when stated (may be negative). */
  origin?: { x: number; y: number };
  cursor?: { x: number; y: number };
}

const NUM = String.raw`(-?\d+(?:\.\d+)?)`;
const PAIR = String.raw`\(?\s*(-?\d+)\s*[,x×]\s*(-?\d+)\s*\)?`;

export function parseScreenText(text: string): ScreenText {
  const out: ScreenText = {};
  const size = new RegExp(String.raw`Screenshot (?:Original )?Size:\s*${PAIR}`, 'i').exec(text);
  if (size) out.size = { width: Number(size[1]), height: Number(size[2]) };
  const scale = new RegExp(String.raw`Screenshot Coordinate Scale:\s*${NUM}`, 'i').exec(text);
  if (scale) out.scale = Number(scale[1]);
  const transform = new RegExp(String.raw`Screenshot Coordinate Transform:.*?\(\s*${NUM}\s*\+\s*image_x\s*[×x*]\s*${NUM}\s*,\s*${NUM}\s*\+\s*image_y`, 'i').exec(text);
  if (transform) {
    out.origin = { x: Number(transform[1]), y: Number(transform[3]) };
    out.scale ??= Number(transform[2]);
  }
  const cursor = new RegExp(String.raw`Cursor Position:\s*${PAIR}`, 'i').exec(text);
  if (cursor) out.cursor = { x: Number(cursor[1]), y: Number(cursor[2]) };
  return out;
}

/**
 * The desktop size an image of `image` pixels stands for: the stated original size, else the
 * image scaled by the stated factor, else the image itself.
 */
export function desktopSize(meta: ScreenText, image: { width: number; height: number }): { width: number; height: number } {
  if (meta.size && meta.size.width > 0 && meta.size.height > 0) return meta.size;
  if (meta.scale && meta.scale > 0) return { width: Math.round(image.width * meta.scale), height: Math.round(image.height * meta.scale) };
  return { width: image.width, height: image.height };
}
