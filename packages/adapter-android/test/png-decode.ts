/** A minimal PNG reader for tests (8-bit RGB/RGBA, not interlaced): the pixel at (x, y). */
import { inflateSync } from 'node:zlib';

export interface Pixels { width: number; height: number; channels: number; data: Buffer }

export function decodePng(png: Buffer): Pixels {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const depth = png[24];
  const colour = png[25];
  if (depth !== 8 || (colour !== 2 && colour !== 6) || png[28] !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${png[28]}`);
  const channels = colour === 6 ? 4 : 3;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const data = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? data[y * stride + i - channels]! : 0;
      const b = y > 0 ? data[(y - 1) * stride + i]! : 0;
      const c = y > 0 && i >= channels ? data[(y - 1) * stride + i - channels]! : 0;
      const p = a + b - c;
      const pred = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1
        : Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      data[y * stride + i] = (line[i]! + pred) & 0xff;
    }
  }
  return { width, height, channels, data };
}

export function pixel(img: Pixels, x: number, y: number): [number, number, number] {
  const at = (y * img.width + x) * img.channels;
  return [img.data[at]!, img.data[at + 1]!, img.data[at + 2]!];
}
