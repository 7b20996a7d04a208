import { unionBox, wordsByLine } from './lines.ts';
import type { OcrWord, TextElement } from './types.ts';

/** Words closer than this many character widths read as one element (a label, a menu item). */
const JOIN_GAP_CHARS = 1.5;
const MIN_CONFIDENCE = 0.3;
/** A lone letter or digit is kept only when tesseract is this sure (a "X" close button, a "1"). */
const MIN_SINGLE_CHAR_CONFIDENCE = 0.6;

/**
 * Text elements for set-of-mark screenshots: runs of words on one line whose gaps are under ~1.5
 * character widths, in reading order (rows top to bottom, left to right within a row). Junk is
 * dropped first: confidence under 0.3, lone punctuation, unsure lone characters.
 */
export function textElements(words: readonly OcrWord[]): TextElement[] {
  const elements: TextElement[] = [];
  for (const line of wordsByLine(words.filter(isText))) {
    const charWidth = lineCharWidth(line);
    let run: OcrWord[] = [];
    const flush = () => { if (run.length) elements.push(element(run)); run = []; };
    for (const w of line) {
      const prev = run[run.length - 1];
      if (prev && w.x - (prev.x + prev.width) >= JOIN_GAP_CHARS * charWidth) flush();
      run.push(w);
    }
    flush();
  }
  return readingOrder(elements);
}

function isText(w: OcrWord): boolean {
  if (w.confidence < MIN_CONFIDENCE) return false;
  if ([...w.text].length > 1) return true;
  return /[\p{L}\p{N}]/u.test(w.text) && w.confidence >= MIN_SINGLE_CHAR_CONFIDENCE;
}

/** Over the whole line: one short word of narrow glyphs ("ls") would understate it alone. */
function lineCharWidth(line: readonly OcrWord[]): number {
  let width = 0, chars = 0;
  for (const w of line) { width += w.width; chars += [...w.text].length; }
  return width / Math.max(1, chars);
}

function element(run: readonly OcrWord[]): TextElement {
  const confidence = run.reduce((sum, w) => sum + w.confidence, 0) / run.length;
  return { text: run.map((w) => w.text).join(' '), confidence: Math.round(confidence * 1000) / 1000, ...unionBox(run) };
}

/** Rows: an element joins the current row when its vertical centre is within half a height of it. */
function readingOrder(elements: TextElement[]): TextElement[] {
  const byTop = [...elements].sort((a, b) => centre(a) - centre(b) || a.x - b.x);
  const rows: TextElement[][] = [];
  for (const e of byTop) {
    const row = rows[rows.length - 1];
    const first = row?.[0];
    if (row && first && Math.abs(centre(e) - centre(first)) < Math.min(e.height, first.height) / 2) row.push(e);
    else rows.push([e]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.x - b.x));
}

function centre(e: TextElement): number {
  return e.y + e.height / 2;
}
