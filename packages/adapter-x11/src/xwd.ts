/**
 * XWD (X Window Dump) → raw RGB. sharp cannot read XWD, and converting in the guest would need
 * ImageMagick there, so the frame is parsed here. Handles TrueColor/DirectColor ZPixmap at 24 or
 * 32 bits per pixel in either byte order, as `xwd -root` writes for a 24-bit Xvfb screen.
 */
import { endianness } from 'node:os';
import { x11Error } from './errors.ts';

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

export interface XwdHeader {
  headerSize: number;
  pixmapFormat: number;
  depth: number;
  width: number;
  height: number;
  byteOrder: number;
  bitsPerPixel: number;
  bytesPerLine: number;
  visualClass: number;
  redMask: number;
  greenMask: number;
  blueMask: number;
  ncolors: number;
}

const HEADER_FIELDS = 25;
const ZPIXMAP = 2;
const TRUE_COLOR = 4;
const DIRECT_COLOR = 5;

export function parseXwdHeader(data: Buffer): XwdHeader {
  if (data.length < HEADER_FIELDS * 4) throw bad(`only ${data.length} bytes`);
  const f = (i: number) => data.readUInt32BE(i * 4);
  if (f(1) !== 7) throw bad(`file_version ${f(1)}, expected 7`);
  return {
    headerSize: f(0), pixmapFormat: f(2), depth: f(3), width: f(4), height: f(5), byteOrder: f(7),
    bitsPerPixel: f(11), bytesPerLine: f(12), visualClass: f(13), redMask: f(14), greenMask: f(15), blueMask: f(16),
    ncolors: f(19),
  };
}

/** Decode an XWD dump into packed RGB (3 bytes per pixel). */
export function xwdToRgb(data: Buffer): { data: Buffer; width: number; height: number } {
  const h = parseXwdHeader(data);
  if (h.pixmapFormat !== ZPIXMAP) throw bad(`pixmap format ${h.pixmapFormat}, only ZPixmap (2) is supported`);
  if (h.visualClass !== TRUE_COLOR && h.visualClass !== DIRECT_COLOR) throw bad(`visual class ${h.visualClass}, only TrueColor/DirectColor are supported (run Xvfb with depth 24)`);
  if (h.bitsPerPixel !== 32 && h.bitsPerPixel !== 24) throw bad(`${h.bitsPerPixel} bits per pixel, only 24 and 32 are supported (run Xvfb with depth 24)`);
  const { width, height, bytesPerLine } = h;
  const start = h.headerSize + h.ncolors * 12;
  if (width < 1 || height < 1 || bytesPerLine < width * (h.bitsPerPixel / 8)) throw bad(`bad geometry ${width}x${height}, ${bytesPerLine} bytes per line`);
  if (data.length < start + bytesPerLine * (height - 1) + width * (h.bitsPerPixel / 8)) {
    throw bad(`truncated: ${data.length} bytes for ${width}x${height} at ${h.bitsPerPixel} bpp`);
  }
  const rs = shiftOf(h.redMask), gs = shiftOf(h.greenMask), bs = shiftOf(h.blueMask);
  const out = Buffer.allocUnsafe(width * height * 3);
  const bpp = h.bitsPerPixel / 8;
  const lsb = h.byteOrder === 0;
  // Fast path: the common LSB 32 bpp 0xff0000/0xff00/0xff layout is B,G,R,X in memory.
  const bgrx = lsb && bpp === 4 && h.redMask === 0xff0000 && h.greenMask === 0xff00 && h.blueMask === 0xff;
  let o = 0;
  // Aligned rows (Xvfb's -fbdir file is): one 32-bit load per pixel instead of three byte loads.
  if (bgrx && LITTLE_ENDIAN_HOST && (data.byteOffset + start) % 4 === 0 && bytesPerLine % 4 === 0) {
    const words = new Uint32Array(data.buffer, data.byteOffset + start, (bytesPerLine / 4) * (height - 1) + width);
    const stride = bytesPerLine / 4;
    for (let y = 0; y < height; y++) {
      for (let i = y * stride, end = i + width; i < end; i++) {
        const v = words[i]!;
        out[o++] = (v >>> 16) & 0xff;
        out[o++] = (v >>> 8) & 0xff;
        out[o++] = v & 0xff;
      }
    }
    return { data: out, width, height };
  }
  for (let y = 0; y < height; y++) {
    let p = start + y * bytesPerLine;
    if (bgrx) {
      for (let x = 0; x < width; x++, p += 4) {
        out[o++] = data[p + 2]!;
        out[o++] = data[p + 1]!;
        out[o++] = data[p]!;
      }
      continue;
    }
    for (let x = 0; x < width; x++, p += bpp) {
      const v = bpp === 4
        ? (lsb ? data.readUInt32LE(p) : data.readUInt32BE(p))
        : (lsb ? data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) : (data[p]! << 16) | (data[p + 1]! << 8) | data[p + 2]!);
      out[o++] = channel(v, h.redMask, rs);
      out[o++] = channel(v, h.greenMask, gs);
      out[o++] = channel(v, h.blueMask, bs);
    }
  }
  return { data: out, width, height };
}

function shiftOf(mask: number): number {
  if (mask === 0) throw bad('a colour mask is 0');
  let s = 0;
  while (((mask >>> s) & 1) === 0) s++;
  return s;
}

/** Scale a masked channel to 0..255 whatever its width (5-6-5 and 10-bit visuals included). */
function channel(v: number, mask: number, shift: number): number {
  const max = mask >>> shift;
  const raw = ((v & mask) >>> shift);
  return max === 255 ? raw : Math.round((raw * 255) / max);
}

function bad(why: string) {
  return x11Error('INTERNAL', `the guest's xwd output is not a frame this adapter can read: ${why}`);
}
