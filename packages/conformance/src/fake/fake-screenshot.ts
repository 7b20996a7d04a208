/** Renders the fake desktop as a real PNG: background, then windows bottom to top, each a body in its colour under a darker title bar. */
import sharp from 'sharp';
import type { RawScreen } from '@vmhub/core';
import { BACKGROUND, TITLE_BAR, type DesktopState, type Rgb } from './fake-desktop.ts';

function fill(buf: Buffer, width: number, height: number, x0: number, y0: number, w: number, h: number, rgb: Rgb): void {
  const x1 = Math.min(width, x0 + w), y1 = Math.min(height, y0 + h);
  for (let y = Math.max(0, y0); y < y1; y++) {
    for (let x = Math.max(0, x0); x < x1; x++) {
      const i = (y * width + x) * 3;
      buf[i] = rgb[0]; buf[i + 1] = rgb[1]; buf[i + 2] = rgb[2];
    }
  }
}

export function titleBarColor(rgb: Rgb): Rgb {
  return [Math.round(rgb[0] * 0.55), Math.round(rgb[1] * 0.55), Math.round(rgb[2] * 0.55)];
}

export async function renderDesktop(state: DesktopState): Promise<RawScreen> {
  const { width, height } = state.screen;
  const pixels = Buffer.alloc(width * height * 3);
  fill(pixels, width, height, 0, 0, width, height, BACKGROUND);
  for (const w of state.windows) {
    if (!w.visible) continue;
    fill(pixels, width, height, w.x, w.y, w.width, w.height, w.color);
    fill(pixels, width, height, w.x, w.y, w.width, Math.min(TITLE_BAR, w.height), titleBarColor(w.color));
  }
  const data = await sharp(pixels, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 6 }).toBuffer();
  return { data, format: 'png', width, height };
}
