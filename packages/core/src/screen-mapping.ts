/**
 * Image ↔ screen coordinates, the same for every adapter: input tools take image coordinates of
 * the lease's latest screenshot and core maps them to screen pixels; points off the image or off
 * the screen are refused, never clamped. Pure: no image library needed.
 */
import { VmhubError } from './errors.ts';

/** Maps image pixels of one screenshot to screen pixels. */
export interface ScreenMapping {
  /** Image pixels per screen pixel (below 1 when downscaled). */
  scale: number;
  /** Screen point at the image's top-left. */
  origin: { x: number; y: number };
  /** Image size. */
  width: number;
  height: number;
  /** Full screen size. */
  screen: { width: number; height: number };
}

/** Binary PPM (P6, maxval 255), as QEMU's screendump and xwd converters produce. */
export function parsePpm(data: Buffer): { pixels: Buffer; width: number; height: number } {
  let pos = 0;
  const fields: string[] = [];
  while (fields.length < 4 && pos < data.length) {
    while (pos < data.length && /\s/.test(String.fromCharCode(data[pos]!))) pos++;
    if (data[pos] === 0x23) { while (pos < data.length && data[pos] !== 0x0a) pos++; continue; }
    let tok = '';
    while (pos < data.length && !/\s/.test(String.fromCharCode(data[pos]!))) tok += String.fromCharCode(data[pos++]!);
    fields.push(tok);
  }
  pos++;
  const [magic, w, h, max] = fields;
  const width = Number(w), height = Number(h);
  if (magic !== 'P6' || max !== '255' || !(width > 0) || !(height > 0) || data.length - pos < width * height * 3) {
    throw new VmhubError('INTERNAL', `not a P6 PPM frame (header ${fields.join(' ')})`);
  }
  return { pixels: data.subarray(pos, pos + width * height * 3), width, height };
}

/**
 * Map a point from image space to screen pixels. Points outside the image (or, in screen space,
 * outside the screen) are rejected, never clamped.
 */
export function imageToScreen(point: { x: number; y: number }, mapping: ScreenMapping, field = 'point'): { x: number; y: number } {
  if (point.x < 0 || point.y < 0 || point.x >= mapping.width || point.y >= mapping.height) {
    throw new VmhubError('INVALID_REQUEST', `${field} (${point.x}, ${point.y}) is outside the latest screenshot (${mapping.width}x${mapping.height}); use coordinates inside the image, or coordinate_space "screen"`);
  }
  return {
    x: Math.min(mapping.screen.width - 1, Math.floor(mapping.origin.x + point.x / mapping.scale)),
    y: Math.min(mapping.screen.height - 1, Math.floor(mapping.origin.y + point.y / mapping.scale)),
  };
}

export function assertOnScreen(point: { x: number; y: number }, screen: { width: number; height: number }, field = 'point'): { x: number; y: number } {
  if (point.x < 0 || point.y < 0 || point.x >= screen.width || point.y >= screen.height) {
    throw new VmhubError('INVALID_REQUEST', `${field} (${point.x}, ${point.y}) is off the ${screen.width}x${screen.height} screen`);
  }
  return { x: Math.floor(point.x), y: Math.floor(point.y) };
}
