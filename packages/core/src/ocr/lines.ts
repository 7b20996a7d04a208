import type { OcrWord } from './types.ts';

/** Words grouped by line number, each line in left-to-right order; lines in first-seen order. */
export function wordsByLine(words: readonly OcrWord[]): OcrWord[][] {
  const lines = new Map<number, OcrWord[]>();
  for (const w of words) {
    const line = lines.get(w.line);
    if (line) line.push(w);
    else lines.set(w.line, [w]);
  }
  return [...lines.values()].map((line) => line.sort((a, b) => a.x - b.x));
}

export interface Box { x: number; y: number; width: number; height: number }

export function unionBox(boxes: readonly Box[]): Box {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width); y1 = Math.max(y1, b.y + b.height);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}
