/**
 * Just enough PNG to turn Windows-MCP's downscaled screenshot back into a frame of the
 * desktop's own size (vmhub's screenshot contract: RawScreen is the whole screen in screen
 * pixels, and core does any scaling for the client). Windows-MCP encodes with Pillow: 8-bit,
 * non-interlaced RGB or RGBA (palette and grey handled too). Anything else is refused with a
 * typed error rather than guessed at. An image already at desktop size is passed through
 * untouched, never decoded.
 */
import { inflateSync } from 'node:zlib';
import { winError } from './errors.ts';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk, without decoding. */
export function pngSize(data: Buffer): { width: number; height: number } {
  if (data.length < 24 || !data.subarray(0, 8).equals(SIGNATURE) || data.toString('latin1', 12, 16) !== 'IHDR') {
    throw winError('INTERNAL', 'Windows-MCP sent a screenshot that is not a PNG image');
  }
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

/** Decode to packed RGB. */
export function decodePng(data: Buffer): { pixels: Buffer; width: number; height: number } {
  const { width, height } = pngSize(data);
  const depth = data[24]!, colour = data[25]!, interlace = data[28]!;
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colour];
  if (depth !== 8 || channels === undefined || interlace !== 0) {
    throw winError('INTERNAL', `Windows-MCP's screenshot PNG is ${depth}-bit colour type ${colour}${interlace ? ', interlaced' : ''}: only 8-bit non-interlaced images can be rescaled to the desktop size`);
  }
  const idat: Buffer[] = [];
  let palette: Buffer | undefined;
  for (let pos = 8; pos + 8 <= data.length;) {
    const len = data.readUInt32BE(pos);
    const type = data.toString('latin1', pos + 4, pos + 8);
    const body = data.subarray(pos + 8, pos + 8 + len);
    if (type === 'IDAT') idat.push(body);
    else if (type === 'PLTE') palette = body;
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length < (stride + 1) * height) throw winError('INTERNAL', 'Windows-MCP sent a truncated screenshot PNG');
  const lines = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = lines.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? lines.subarray((y - 1) * stride, y * stride) : undefined;
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? out[i - channels]! : 0;
      const b = up ? up[i]! : 0;
      const c = up && i >= channels ? up[i - channels]! : 0;
      let v = src[i]!;
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw winError('INTERNAL', `Windows-MCP's screenshot PNG has an unknown row filter ${filter}`);
      out[i] = v & 0xff;
    }
  }
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0, n = width * height; i < n; i++) {
    if (colour === 2 || colour === 6) {
      const s = i * channels;
      pixels[i * 3] = lines[s]!; pixels[i * 3 + 1] = lines[s + 1]!; pixels[i * 3 + 2] = lines[s + 2]!;
    } else if (colour === 3) {
      const k = lines[i]! * 3;
      pixels[i * 3] = palette?.[k] ?? 0; pixels[i * 3 + 1] = palette?.[k + 1] ?? 0; pixels[i * 3 + 2] = palette?.[k + 2] ?? 0;
    } else {
      const g = lines[i * channels]!;
      pixels[i * 3] = g; pixels[i * 3 + 1] = g; pixels[i * 3 + 2] = g;
    }
  }
  return { pixels, width, height };
}

/** Nearest-neighbour resample of packed RGB to width×height. */
export function resampleRgb(src: { pixels: Buffer; width: number; height: number }, width: number, height: number): Buffer {
  const out = Buffer.alloc(width * height * 3);
  const xs = new Uint32Array(width);
  for (let x = 0; x < width; x++) xs[x] = Math.min(src.width - 1, Math.floor(((x + 0.5) * src.width) / width));
  for (let y = 0; y < height; y++) {
    const sy = Math.min(src.height - 1, Math.floor(((y + 0.5) * src.height) / height));
    const row = sy * src.width;
    for (let x = 0; x < width; x++) src.pixels.copy(out, (y * width + x) * 3, (row + xs[x]!) * 3, (row + xs[x]!) * 3 + 3);
  }
  return out;
}
