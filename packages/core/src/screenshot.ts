/**
 * @vmhub/core/screenshot — screenshot shaping (sharp/libvips, an optional peer dependency that
 * the server supplies; plugins never need it). The adapter captures, core shapes.
 * A frame is cropped to an optional region, scaled to fit a pixel box (or magnified by `scale`),
 * encoded as PNG, JPEG or WebP within a byte budget, and returned with the mapping that input
 * tools use to turn image coordinates back into screen pixels.
 */
import type { Sharp } from 'sharp';
import type { RawScreen } from './channel.ts';
import { VmhubError } from './errors.ts';
import { parsePpm, type ScreenMapping } from './screen-mapping.ts';

export type { ScreenMapping } from './screen-mapping.ts';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

/** A screen-pixel rectangle. */
export interface Region { x: number; y: number; width: number; height: number }

export interface ShapeOptions {
  format?: ImageFormat;
  /** Pixel box the image must fit in. Defaults 1280×800. Ignored when `scale` > 1. */
  maxWidth?: number;
  maxHeight?: number;
  /** Byte budget; quality, then size, step down until the image fits. Default 800 000. */
  maxBytes?: number;
  /** Screen-pixel rectangle to capture instead of the whole screen. */
  region?: Region;
  /**
   * Image pixels per screen pixel. Above 1 magnifies (nearest neighbour: crisp pixels, so a
   * zoomed click maps to one exact screen pixel), up to 4096 px a side and the byte budget; at or
   * below 1 it caps the fit-the-box scale. The result's `scale` says what was used.
   */
  scale?: number;
  /** An image (SVG) drawn over the result at its final size, e.g. set-of-mark boxes. */
  overlay?: (mapping: ScreenMapping) => Buffer;
}

export interface ShapedScreenshot extends ScreenMapping {
  data: Buffer;
  format: ImageFormat;
  mime: string;
}

/** Decoded pixels of a screen region, rows packed. */
export interface RegionPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  /** Where they are on the screen (screen pixels, integers). */
  region: Region;
  /** The full screen's size. */
  screen: { width: number; height: number };
}

/** Pixels row after row: what the changed-rows comparisons read (RegionPixels, OcrImage, a Baseline). */
export interface PixelRows { data: Buffer; width: number; height: number; channels: number }

/** Same width, height and channels: rows that compare byte for byte. */
export const sameShape = (a: PixelRows, b: PixelRows): boolean => a.width === b.width && a.height === b.height && a.channels === b.channels;

/** Whether row `y` differs between two images of the same shape (memcmp). */
export function rowDiffers(a: PixelRows, b: PixelRows, y: number): boolean {
  const stride = b.width * b.channels, start = y * stride;
  return a.data.compare(b.data, start, start + stride, start, start + stride) !== 0;
}

/** Largest side of a zoomed image (the schema's max_width). */
export const MAX_SIDE = 4096;

// sharp (libvips) is loaded on the first screenshot, not at server start: cold start matters to
// every MCP client that spawns the server, and most calls never touch an image.
type SharpFactory = (input?: Buffer, options?: import('sharp').SharpOptions) => Sharp;
let sharpModule: Promise<{ default: SharpFactory }> | undefined;
export async function sharp(input?: Buffer, options?: import('sharp').SharpOptions): Promise<Sharp> {
  sharpModule ??= import('sharp') as unknown as Promise<{ default: SharpFactory }>;
  return (await sharpModule).default(input, options);
}

const MIME: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * The downscale kernel per format, chosen on screen content (bench/resize.mjs, RESULTS.md): for
 * PNG, lanczos2 keeps as much text legible as lanczos3 with 14–16 % fewer bytes and less time
 * (lanczos3's ringing around glyphs makes colours deflate compresses badly). JPEG and WebP keep
 * lanczos3: a lanczos2 JPEG frame made tesseract misread a digit in the live view's test.
 */
const DOWNSCALE_KERNEL: Record<ImageFormat, 'lanczos2' | 'lanczos3'> = { png: 'lanczos2', jpeg: 'lanczos3', webp: 'lanczos3' };

export async function shapeScreenshot(raw: RawScreen, options: ShapeOptions = {}): Promise<ShapedScreenshot> {
  return passThrough(raw, options) ?? shapePixels(await decodeRegion(raw, options.region), options);
}

/**
 * The capture itself when shaping would not change it: a PNG when PNG is asked, of the size the
 * adapter declared (its IHDR), the whole screen (no region, no overlay), fitting the box at scale
 * 1 and within the byte budget. No decode, no re-encode (an Android `screencap -p` PNG goes to the
 * client as the device made it). Undefined when any of that does not hold: then decode and shape.
 */
export function passThrough(raw: RawScreen, options: ShapeOptions = {}): ShapedScreenshot | undefined {
  const format = options.format ?? 'png';
  if (format !== 'png' || raw.format !== 'png' || options.overlay || !pngOfSize(raw)) return undefined;
  const whole: Region = { x: 0, y: 0, width: raw.width, height: raw.height };
  const r = options.region;
  if (r && !(r.x === 0 && r.y === 0 && r.width === raw.width && r.height === raw.height)) return undefined;
  if (initialScale(whole, options) !== 1 || raw.data.length > (options.maxBytes ?? 800_000)) return undefined;
  return { data: raw.data, format, mime: MIME[format], width: raw.width, height: raw.height, scale: 1, origin: { x: 0, y: 0 }, screen: { width: raw.width, height: raw.height } };
}

/** Shape pixels already decoded by decodeRegion (one decode serves digest, OCR and the image). */
export async function shapePixels(px: RegionPixels, options: Omit<ShapeOptions, 'region'> = {}): Promise<ShapedScreenshot> {
  const format = options.format ?? 'png';
  const maxBytes = options.maxBytes ?? 800_000;
  const { region, screen } = px;
  let scale = initialScale(region, options);
  let quality = 80;
  for (let attempt = 0; attempt < 16; attempt++) {
    const width = Math.max(1, Math.round(region.width * scale));
    const height = Math.max(1, Math.round(region.height * scale));
    let img = await sharp(px.data, { raw: { width: px.width, height: px.height, channels: px.channels } });
    if (width !== region.width || height !== region.height) img = img.resize(width, height, { fit: 'fill', kernel: width > region.width ? 'nearest' : DOWNSCALE_KERNEL[format] });
    const mapping: ScreenMapping = { width, height, scale: width / region.width, origin: { x: region.x, y: region.y }, screen };
    if (options.overlay) img = (await sharp(await img.raw().toBuffer(), { raw: { width, height, channels: px.channels } })).composite([{ input: options.overlay(mapping), top: 0, left: 0 }]);
    const data = await encode(img, format, quality);
    if (data.length <= maxBytes || (width <= 64 && height <= 64)) return { data, format, mime: MIME[format], ...mapping };
    if (format !== 'png' && quality > 40) quality -= 20;
    // A zoom steps down by whole factors, so it stays crisp (every screen pixel a square).
    else scale = scale > 1 ? Math.max(1, Math.ceil(scale) - 1) : scale * 0.8;
  }
  throw new VmhubError('INVALID_REQUEST', `screenshot does not fit in ${maxBytes} bytes; ask for a smaller max_width or a region`);
}

/** A PNG whose header (signature, then IHDR's width and height) says the declared size. */
function pngOfSize(raw: RawScreen): boolean {
  const d = raw.data;
  return d.length >= 24 && d.readUInt32BE(0) === 0x89504e47 && d.toString('latin1', 12, 16) === 'IHDR' && d.readUInt32BE(16) === raw.width && d.readUInt32BE(20) === raw.height;
}

function initialScale(region: Region, options: ShapeOptions): number {
  const asked = options.scale;
  if (asked !== undefined && asked > 1) {
    const limit = Math.min(MAX_SIDE / region.width, MAX_SIDE / region.height);
    if (asked <= limit) return asked;
    return limit >= 1 ? Math.floor(limit) : limit;
  }
  const fit = Math.min(1, (options.maxWidth ?? 1280) / region.width, (options.maxHeight ?? 800) / region.height);
  return asked !== undefined ? Math.min(asked, fit) : fit;
}

/**
 * Decode a capture and cut out `region` (default: the whole screen), refusing a region that is
 * not wholly on the screen. Raw and PPM frames are cut without an image library.
 */
export async function decodeRegion(raw: RawScreen, region?: Region): Promise<RegionPixels> {
  const screen = { width: raw.width, height: raw.height };
  const r = region ?? { x: 0, y: 0, width: raw.width, height: raw.height };
  if (!(r.x >= 0 && r.y >= 0 && r.width >= 1 && r.height >= 1 && r.x + r.width <= raw.width && r.y + r.height <= raw.height)) {
    throw new VmhubError('INVALID_REQUEST', `region ${r.width}x${r.height}+${r.x}+${r.y} is outside the ${raw.width}x${raw.height} screen`);
  }
  const x = Math.min(raw.width - 1, Math.round(r.x)), y = Math.min(raw.height - 1, Math.round(r.y));
  const cut: Region = { x, y, width: Math.max(1, Math.min(raw.width - x, Math.round(r.width))), height: Math.max(1, Math.min(raw.height - y, Math.round(r.height))) };
  const packed = packedPixels(raw);
  if (packed) return { ...crop(packed.data, packed.width, packed.channels, cut), region: cut, screen };
  let img = await sharp(raw.data);
  if (cut.x !== 0 || cut.y !== 0 || cut.width !== raw.width || cut.height !== raw.height) img = img.extract({ left: cut.x, top: cut.y, width: cut.width, height: cut.height });
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  // Grey + alpha has no OcrImage shape: keep the grey.
  if (info.channels === 2) {
    const grey = Buffer.alloc(info.width * info.height);
    for (let i = 0; i < grey.length; i++) grey[i] = data[i * 2]!;
    return { data: grey, width: info.width, height: info.height, channels: 1, region: cut, screen };
  }
  return { data, width: info.width, height: info.height, channels: info.channels as 1 | 3 | 4, region: cut, screen };
}

function packedPixels(raw: RawScreen): { data: Buffer; width: number; channels: 3 | 4 } | undefined {
  let packed: { data: Buffer; width: number; height: number; channels: 3 | 4 };
  if (raw.format === 'rgba') packed = { data: raw.data, width: raw.width, height: raw.height, channels: 4 };
  else if (raw.format === 'rgb') packed = { data: raw.data, width: raw.width, height: raw.height, channels: 3 };
  else if (raw.format === 'ppm') { const p = parsePpm(raw.data); packed = { data: p.pixels, width: p.width, height: p.height, channels: 3 }; }
  else return undefined;
  if (packed.width !== raw.width || packed.height !== raw.height || packed.data.length < packed.width * packed.height * packed.channels) {
    throw new VmhubError('INTERNAL', `screen capture (${raw.format}) holds ${packed.data.length} bytes for ${packed.width}x${packed.height}, declared ${raw.width}x${raw.height}: the adapter's frame is malformed`);
  }
  return packed;
}

function crop(data: Buffer, width: number, channels: 3 | 4, r: Region): { data: Buffer; width: number; height: number; channels: 3 | 4 } {
  const row = r.width * channels;
  if (r.x === 0 && r.width === width) return { data: data.subarray(r.y * row, (r.y + r.height) * row), width: r.width, height: r.height, channels };
  const out = Buffer.allocUnsafe(row * r.height);
  for (let i = 0; i < r.height; i++) {
    const start = ((r.y + i) * width + r.x) * channels;
    data.copy(out, i * row, start, start + row);
  }
  return { data: out, width: r.width, height: r.height, channels };
}

async function encode(img: Sharp, format: ImageFormat, quality: number): Promise<Buffer> {
  if (format === 'jpeg') return img.jpeg({ quality, mozjpeg: false }).toBuffer();
  if (format === 'webp') return img.webp({ quality, effort: 2 }).toBuffer();
  return img.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
}
