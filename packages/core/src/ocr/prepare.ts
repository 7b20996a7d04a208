import type { Sharp, SharpOptions } from 'sharp';
import { VmhubError } from '../errors.ts';
import type { OcrImage } from './types.ts';

export type Polarity = 'local' | 'global' | 'none';

export interface PrepareOptions {
  /**
   * How to make text dark on light, which is what tesseract reads best (screens are not scans):
   * 'local' (default) draws each pixel by its distance from the local background, so dark
   * panels, light windows and coloured buttons on one screen all come out dark on white;
   * 'global' inverts the whole image when its mean is dark; 'none' keeps the grey as it is.
   */
  polarity?: Polarity;
  /** Magnify by this before OCR; small screen fonts (10–14 px) read better larger. Default 2. */
  scale?: number;
  /** 'local' only: how much the distance from the background is amplified (thin, grey text). Default 2. */
  gain?: number;
  /**
   * Bitmap-font text (a VGA or serial console: a handful of grey levels, no anti-aliasing) is
   * magnified 1.25× taller than wide and softened, which the LSTM model, trained on smooth
   * glyphs of ordinary proportions, reads better (bench:ocr). 'auto' (default) looks at the
   * grey levels; true / false force it.
   */
  bitmap?: 'auto' | boolean;
}

/** Grey pixels ready for OCR (dark text on white), magnified by `scale` across and `scaleY` down. */
export interface PreparedImage {
  pixels: Buffer;
  width: number;
  height: number;
  scale: number;
  scaleY: number;
}

/** Rows [top, bottom) of a prepared image as a binary PGM (P5), which tesseract reads on stdin. */
export function toPgm(image: PreparedImage, top = 0, bottom = image.height): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${image.width} ${bottom - top}\n255\n`), image.pixels.subarray(top * image.width, bottom * image.width)]);
}

// sharp is an optional peer, loaded on first use as in screenshot.ts. Every grey pipeline ends in
// extractChannel(0): sharp writes one-channel raw input back out as three channels otherwise.
type SharpFactory = (input?: Buffer, options?: SharpOptions) => Sharp;
let sharpModule: Promise<{ default: SharpFactory }> | undefined;
async function sharp(input: Buffer, options: SharpOptions): Promise<Sharp> {
  sharpModule ??= import('sharp') as unknown as Promise<{ default: SharpFactory }>;
  try {
    return (await sharpModule).default(input, options);
  } catch (err) {
    sharpModule = undefined;
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [ocr] sharp is needed to prepare images for OCR: ${(err as Error).message}`, { hint: 'Install sharp beside @vmhub/core (npm install sharp).', cause: err });
  }
}

export async function prepareForOcr(image: OcrImage, options: PrepareOptions = {}): Promise<PreparedImage> {
  const { width, height } = image;
  const grey = await greyOf(image);
  const bitmap = isBitmap(grey, options);
  const polarity = options.polarity ?? 'local';
  if (polarity === 'local') distanceFromBackground(grey, width, height, options.gain ?? 2);
  else if (polarity === 'global' && mean(grey) < 128) invert(grey);
  return magnify(grey, width, height, options.scale ?? 2, bitmap);
}

/** Where a band of rows sits in the stacked image prepareRows reads: source rows [top, bottom) at row `at`. */
export interface Tile { top: number; bottom: number; at: number }

/** The bands of prepareRows, stacked with white between them, and where each one came from. */
export interface PreparedRows extends PreparedImage { tiles: Tile[] }

/** White rows between stacked bands (source pixels): tesseract sees each band as text of its own. */
const TILE_GAP = 16;
/**
 * Rows read around a band so its pixels come out as in a whole-screen preparation: a pixel's
 * background comes from cells up to ~16 px away, whose sums reach 8 px further. Cell-aligned.
 */
const BAND_MARGIN = 32;

/**
 * Only the bands of rows [top, bottom) of `image`, prepared exactly as prepareForOcr prepares the
 * whole (bitmap detection and global polarity on the whole image, each pixel's background from
 * the same cells), stacked top to bottom with white rows between them, then magnified alike.
 */
export async function prepareRows(image: OcrImage, bands: ReadonlyArray<readonly [number, number]>, options: PrepareOptions = {}): Promise<PreparedRows> {
  const { width, height } = image;
  const grey = await greyOf(image);
  const bitmap = isBitmap(grey, options);
  const polarity = options.polarity ?? 'local';
  const tiles: Tile[] = [];
  let at = 0;
  for (const [top, bottom] of bands) {
    tiles.push({ top, bottom, at });
    at += bottom - top + TILE_GAP;
  }
  const stacked = Buffer.alloc(Math.max(1, at - TILE_GAP) * width, 255);
  const dark = polarity === 'global' && mean(grey) < 128;
  for (const t of tiles) {
    const from = Math.max(0, Math.floor((t.top - BAND_MARGIN) / CELL) * CELL), to = Math.min(height, t.bottom + BAND_MARGIN);
    const rows = Buffer.from(grey.subarray(from * width, to * width));
    if (polarity === 'local') distanceFromBackground(rows, width, to - from, options.gain ?? 2);
    else if (dark) invert(rows);
    rows.copy(stacked, t.at * width, (t.top - from) * width, (t.bottom - from) * width);
  }
  return { ...await magnify(stacked, width, stacked.length / width, options.scale ?? 2, bitmap), tiles };
}

function isBitmap(grey: Buffer, options: PrepareOptions): boolean {
  return options.bitmap === undefined || options.bitmap === 'auto' ? looksBitmap(grey) : options.bitmap;
}

function invert(grey: Buffer): void {
  for (let i = 0; i < grey.length; i++) grey[i] = 255 - grey[i]!;
}

async function magnify(grey: Buffer, width: number, height: number, scale: number, bitmap: boolean): Promise<PreparedImage> {
  const scaleY = bitmap ? scale * BITMAP_STRETCH : scale;
  if (scale === 1 && scaleY === 1) return { pixels: grey, width, height, scale: 1, scaleY: 1 };
  const outW = Math.round(width * scale), outH = Math.round(height * scaleY);
  let img = (await sharp(grey, { raw: { width, height, channels: 1 } })).resize(outW, outH, { kernel: 'cubic', fit: 'fill' });
  if (bitmap) img = img.blur(BITMAP_BLUR);
  const pixels = await img.extractChannel(0).raw().toBuffer();
  return { pixels, width: outW, height: outH, scale: outW / width, scaleY: outH / height };
}

/**
 * Measured on the VGA console corpus (Uni2-VGA16, 9×16 cells): glyphs drawn 1.25× taller than
 * wide read 0.87 vs 0.82 at the same width; wider (3×2) fell to 0.65. The blur gives the model
 * the soft edges it was trained on (+0.01).
 */
const BITMAP_STRETCH = 1.25;
const BITMAP_BLUR = 0.8;
/** A bitmap screen puts nearly all its pixels on a few grey levels; anti-aliased text and images spread them. */
const BITMAP_LEVELS = 16;
const BITMAP_SHARE = 0.998;

function looksBitmap(grey: Buffer): boolean {
  const hist = new Uint32Array(256);
  for (let i = 0; i < grey.length; i++) hist[grey[i]!]!++;
  const top = [...hist].sort((a, b) => b - a).slice(0, BITMAP_LEVELS).reduce((n, c) => n + c, 0);
  return top >= grey.length * BITMAP_SHARE;
}

async function greyOf(image: OcrImage): Promise<Buffer> {
  const { data, width, height, channels } = image;
  if (data.length !== width * height * channels) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [ocr] image data is ${data.length} bytes, not ${width}×${height}×${channels}`);
  }
  if (channels === 1) return Buffer.from(data);
  const img = await sharp(data, { raw: { width, height, channels } });
  return (channels === 4 ? img.removeAlpha() : img).toColourspace('b-w').extractChannel(0).raw().toBuffer();
}

function mean(grey: Buffer): number {
  let sum = 0;
  for (let i = 0; i < grey.length; i += 7) sum += grey[i]!;
  return sum / Math.ceil(grey.length / 7);
}

/** The background is estimated per CELL×CELL block, from the WINDOW×WINDOW blocks around it (~20 px). */
const CELL = 4;
const WINDOW = 5;
const BINS = 16;
/** Backgrounds this far apart in grey make an edge (a panel's, a button's). */
const EDGE = 40;

/**
 * Text, whatever its colour, is what differs from the local background. The background of each
 * 4 px cell is the most common grey (16 bins) in the ~20 px around it: text covers less of any
 * window than its background does, even dense console text, and anti-aliased glyphs spread over
 * several bins. Each pixel becomes white at the background and darker the further it is from it:
 * light-on-dark panels, dark-on-light windows and white-on-blue buttons all come out dark on white.
 */
function distanceFromBackground(grey: Buffer, width: number, height: number, gain: number): void {
  const sw = Math.ceil(width / CELL), sh = Math.ceil(height / CELL), cells = sw * sh;
  // per-cell histograms (counts and sums of grey, to take the winning bin's mean), then box sums
  const cellCount = new Uint32Array(cells * BINS), cellSum = new Uint32Array(cells * BINS);
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / CELL) * sw;
    for (let x = 0, p = y * width; x < width; x++, p++) {
      const v = grey[p]!, k = (row + Math.floor(x / CELL)) * BINS + (v >> 4);
      cellCount[k]!++; cellSum[k]! += v;
    }
  }
  const count = boxSum(cellCount, sw, sh), sum = boxSum(cellSum, sw, sh);
  const background = new Uint8Array(cells);
  for (let c = 0; c < cells; c++) {
    let best = 0;
    for (let b = 1; b < BINS; b++) if (count[c * BINS + b]! > count[c * BINS + best]!) best = b;
    background[c] = Math.round(sum[c * BINS + best]! / Math.max(1, count[c * BINS + best]!));
  }
  const half = CELL >> 1;
  // Each pixel takes, of the four background cells around it, the one closest to its own value:
  // at a panel's or a button's edge the pixel then meets its own background, not a 4 px step.
  for (let y = 0; y < height; y++) {
    const j0 = Math.max(0, Math.min(sh - 1, Math.floor((y - half) / CELL))), j1 = Math.min(sh - 1, j0 + 1);
    for (let x = 0, p = y * width; x < width; x++, p++) {
      const i0 = Math.max(0, Math.min(sw - 1, Math.floor((x - half) / CELL))), i1 = Math.min(sw - 1, i0 + 1);
      const v = grey[p]!;
      const a = background[j0 * sw + i0]!, b = background[j0 * sw + i1]!, c = background[j1 * sw + i0]!, e = background[j1 * sw + i1]!;
      const lo = Math.min(a, b, c, e), hi = Math.max(a, b, c, e);
      // where two backgrounds meet, the anti-aliased blend between them is edge, not ink
      const d = hi - lo > EDGE && v > lo && v < hi ? 0
        : Math.min(Math.abs(v - a), Math.abs(v - b), Math.abs(v - c), Math.abs(v - e)) * gain;
      grey[p] = d >= 255 ? 0 : 255 - d;
    }
  }
}

/** Each cell's histogram summed over the WINDOW×WINDOW cells around it (edges clamped). */
function boxSum(h: Uint32Array, sw: number, sh: number): Uint32Array {
  const r = WINDOW >> 1;
  const across = new Uint32Array(h.length), out = new Uint32Array(h.length);
  for (let j = 0; j < sh; j++) {
    for (let i = 0; i < sw; i++) {
      const to = (j * sw + i) * BINS;
      for (let d = -r; d <= r; d++) {
        const from = (j * sw + Math.min(sw - 1, Math.max(0, i + d))) * BINS;
        for (let b = 0; b < BINS; b++) across[to + b]! += h[from + b]!;
      }
    }
  }
  for (let j = 0; j < sh; j++) {
    for (let i = 0; i < sw; i++) {
      const to = (j * sw + i) * BINS;
      for (let d = -r; d <= r; d++) {
        const from = (Math.min(sh - 1, Math.max(0, j + d)) * sw + i) * BINS;
        for (let b = 0; b < BINS; b++) out[to + b]! += across[from + b]!;
      }
    }
  }
  return out;
}
