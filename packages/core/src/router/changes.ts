/**
 * Incremental screenshots (vm_screenshot {changed_only: true}): the bounding box of the pixels
 * that differ between the lease's previous full-screen frame and this one. Rows are compared with
 * memcmp (Buffer.compare) to find the first and last changed row, then only the changed rows are
 * scanned from both ends for the first and last changed column.
 */
import { rowDiffers, sameShape, type Region, type RegionPixels } from '../screenshot.ts';

/** A full-screen frame kept as the next call's baseline (a copy: adapters may reuse their buffers). */
export interface Baseline {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/**
 * `px` as the next baseline, copied into the previous baseline's buffer when it has the same
 * shape (a new 11 MB buffer per screenshot at 2560×1440 kept the collector busy).
 */
export function baselineOf(px: RegionPixels, previous?: Baseline): Baseline {
  if (previous && previous.data.length === px.data.length && previous.width === px.width && previous.height === px.height && previous.channels === px.channels) {
    if (previous.data !== px.data) px.data.copy(previous.data);
    return previous;
  }
  return { data: Buffer.from(px.data), width: px.width, height: px.height, channels: px.channels };
}

/**
 * The smallest screen region holding every changed pixel; undefined when nothing changed; the
 * whole screen when there is no comparable baseline (none yet, or another size or pixel format).
 */
export function changedBox(before: Baseline | undefined, now: RegionPixels): Region | undefined {
  const { width, height, channels } = now;
  const whole = { x: 0, y: 0, width, height };
  if (!before || !sameShape(before, now)) return whole;
  const stride = width * channels;
  const a = before.data, b = now.data;
  let top = 0;
  while (top < height && !rowDiffers(before, now, top)) top++;
  if (top === height) return undefined;
  let bottom = height - 1;
  while (bottom > top && !rowDiffers(before, now, bottom)) bottom--;
  let left = width, right = -1;
  for (let y = top; y <= bottom; y++) {
    const row = y * stride;
    let i = 0;
    while (i < left * channels && a[row + i] === b[row + i]) i++;
    if (i < left * channels) left = Math.floor(i / channels);
    let j = stride - 1;
    while (j > (right + 1) * channels - 1 && a[row + j] === b[row + j]) j--;
    if (j > (right + 1) * channels - 1) right = Math.floor(j / channels);
  }
  return { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}
