/**
 * @vmhub/core/screenshot — screenshot shaping (sharp/libvips, an optional peer dependency that
 * the server supplies; plugins never need it). The adapter captures, core shapes.
 * A frame is cropped to an optional region, scaled to fit a pixel box, encoded as PNG, JPEG or
 * WebP within a byte budget, and returned with the mapping that input tools use to turn image
 * coordinates back into screen pixels.
 */
import type { Sharp } from 'sharp';
import type { RawScreen } from './channel.ts';
import { VmhubError } from './errors.ts';
import { parsePpm, type ScreenMapping } from './screen-mapping.ts';

export type { ScreenMapping } from './screen-mapping.ts';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface ShapeOptions {
  format?: ImageFormat;
  /** Pixel box the image must fit in. Defaults 1280×800. */
  maxWidth?: number;
  maxHeight?: number;
  /** Byte budget; quality, then size, step down until the image fits. Default 800 000. */
  maxBytes?: number;
  /** Screen-pixel rectangle to capture instead of the whole screen. */
  region?: { x: number; y: number; width: number; height: number };
}

export interface ShapedScreenshot extends ScreenMapping {
  data: Buffer;
  format: ImageFormat;
  mime: string;
}

// sharp (libvips) is loaded on the first screenshot, not at server start: cold start matters to
// every MCP client that spawns the server, and most calls never touch an image.
type SharpFactory = (input?: Buffer, options?: import('sharp').SharpOptions) => Sharp;
let sharpModule: Promise<{ default: SharpFactory }> | undefined;
async function sharp(input?: Buffer, options?: import('sharp').SharpOptions): Promise<Sharp> {
  sharpModule ??= import('sharp') as unknown as Promise<{ default: SharpFactory }>;
  return (await sharpModule).default(input, options);
}

const MIME: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

export async function shapeScreenshot(raw: RawScreen, options: ShapeOptions = {}): Promise<ShapedScreenshot> {
  const format = options.format ?? 'png';
  const maxWidth = options.maxWidth ?? 1280;
  const maxHeight = options.maxHeight ?? 800;
  const maxBytes = options.maxBytes ?? 800_000;
  const screen = { width: raw.width, height: raw.height };
  const region = options.region ?? { x: 0, y: 0, width: raw.width, height: raw.height };
  if (region.x < 0 || region.y < 0 || region.width < 1 || region.height < 1 || region.x + region.width > raw.width || region.y + region.height > raw.height) {
    throw new VmhubError('INVALID_REQUEST', `region ${region.width}x${region.height}+${region.x}+${region.y} is outside the ${raw.width}x${raw.height} screen`);
  }
  const base = await decode(raw);
  const cropped = region.x === 0 && region.y === 0 && region.width === raw.width && region.height === raw.height
    ? base
    : base.extract({ left: Math.round(region.x), top: Math.round(region.y), width: Math.round(region.width), height: Math.round(region.height) });
  const frame = await cropped.raw().toBuffer({ resolveWithObject: true });

  let scale = Math.min(1, maxWidth / region.width, maxHeight / region.height);
  let quality = 80;
  for (let attempt = 0; attempt < 8; attempt++) {
    const width = Math.max(1, Math.round(region.width * scale));
    const height = Math.max(1, Math.round(region.height * scale));
    let img = await sharp(frame.data, { raw: { width: frame.info.width, height: frame.info.height, channels: frame.info.channels } });
    if (width !== region.width || height !== region.height) img = img.resize(width, height, { fit: 'fill', kernel: 'lanczos3' });
    const data = await encode(img, format, quality);
    if (data.length <= maxBytes || (width <= 64 && height <= 64)) {
      return { data, format, mime: MIME[format], width, height, scale: width / region.width, origin: { x: region.x, y: region.y }, screen };
    }
    if (format !== 'png' && quality > 40) quality -= 20;
    else scale *= 0.8;
  }
  throw new VmhubError('INVALID_REQUEST', `screenshot does not fit in ${maxBytes} bytes; ask for a smaller max_width or a region`);
}

async function encode(img: Sharp, format: ImageFormat, quality: number): Promise<Buffer> {
  if (format === 'jpeg') return img.jpeg({ quality, mozjpeg: false }).toBuffer();
  if (format === 'webp') return img.webp({ quality, effort: 2 }).toBuffer();
  return img.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
}

async function decode(raw: RawScreen): Promise<Sharp> {
  switch (raw.format) {
    case 'rgba':
      return sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } });
    case 'rgb':
      return sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 3 } });
    case 'ppm': {
      const { pixels, width, height } = parsePpm(raw.data);
      return sharp(pixels, { raw: { width, height, channels: 3 } });
    }
    default:
      return sharp(raw.data);
  }
}

