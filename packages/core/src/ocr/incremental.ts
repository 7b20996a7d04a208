/**
 * OCR in proportion to what changed: given a screen already read (its pixels and words) and a new
 * one of the same shape, which rows need reading again, and the new screen's words from the old
 * ones plus those rows' read.
 *
 * - Changed rows are found by comparing rows (memcmp: rowDiffers, as vm_screenshot {changed_only}
 *   finds them); runs of them closer than MERGE_GAP rows make one band.
 * - A band spans the whole width and grows up and down until no remembered word straddles its
 *   edges: every word it touches, and every word of those words' lines, is read again whole (a
 *   word typed onto the end of another, a line whose spacing changed).
 * - Past FULL_SHARE of the rows (a scroll, a new window, another screen), or with nothing
 *   remembered, the plan is a whole read: it is cheaper and reads each line in its full context.
 * - The engine reads each band a few rows taller (rowsToRead: tesseract's boxes are tight ink).
 * - The merge keeps remembered words outside the bands (their boxes are in screen pixels and the
 *   pixels under them are identical, so their coordinates stay right), takes the read words whose
 *   centre lies in a band, and numbers the lines again top to bottom.
 */
import { rowDiffers, sameShape } from '../screenshot.ts';
import type { OcrImage, OcrWord, RowBand } from './types.ts';

/** Changed rows closer than this make one band (a glyph's own blank rows, line spacing). */
const MERGE_GAP = 8;
/**
 * Rows read beyond a grown band: word boxes are the ink tesseract kept after binarising, and a
 * band cut right at them loses faint anti-aliased rows (a "d" whose ascender is cut reads "a").
 * Never into another line's words: a neighbour's descenders at a band's edge join its words.
 */
const READ_PAD = 3;
/**
 * Changed rows are padded by this before they grow over words: a word right beside a change is
 * read in new surroundings. Measured (bench:ocr ours-incremental, bench:ocr-incremental): 0 lets
 * words at a change's edge keep stale readings (corpus precision 0.941 vs 0.970), 2 takes in the
 * line above a terminal's prompt (a cursor block fills its cell), 1 does neither.
 */
const PAD = 1;
/** A read of more than this share of the rows is a whole read. */
export const FULL_SHARE = 0.5;

/** 'same': identical pixels; 'whole': read everything; else the bands of rows to read. */
export type Plan = 'same' | 'whole' | RowBand[];

/** Runs of rows that differ between two images of the same shape, [top, bottom). */
export function changedBands(before: OcrImage, now: OcrImage, gap = MERGE_GAP): RowBand[] {
  const bands: Array<[number, number]> = [];
  for (let y = 0; y < now.height; y++) {
    if (!rowDiffers(before, now, y)) continue;
    const last = bands[bands.length - 1];
    if (last && y - last[1] < gap) last[1] = y + 1;
    else bands.push([y, y + 1]);
  }
  return bands;
}

/**
 * The rows to give the engine for grown bands: each up to READ_PAD rows taller, but not into the
 * box of a word outside it (`words`: the base's; after grow() every word is inside or outside).
 */
export function rowsToRead(bands: readonly RowBand[], height: number, words: readonly OcrWord[] = []): RowBand[] {
  return join(bands.map(([t, b]) => {
    let top = Math.max(0, t - READ_PAD), bottom = Math.min(height, b + READ_PAD);
    for (const w of words) {
      if (w.y + w.height <= t) top = Math.max(top, w.y + w.height);
      else if (w.y >= b) bottom = Math.min(bottom, w.y);
    }
    return [top, bottom];
  }));
}

/** How many rows differ, stopping once past `limit` (to compare candidate bases cheaply). */
export function changedRowCount(before: OcrImage, now: OcrImage, limit = Infinity): number {
  let n = 0;
  for (let y = 0; y < now.height && n <= limit; y++) if (rowDiffers(before, now, y)) n++;
  return n;
}

/** The rows to read on `now`, given the screen `before` and the words read on it. */
export function planRead(before: OcrImage, words: readonly OcrWord[], now: OcrImage): Plan {
  if (!sameShape(before, now)) return 'whole';
  const changed = changedBands(before, now);
  if (!changed.length) return 'same';
  const bands = grow(changed.map(([t, b]) => [Math.max(0, t - PAD), Math.min(now.height, b + PAD)]), words);
  const rows = bands.reduce((n, [t, b]) => n + b - t, 0);
  return rows > now.height * FULL_SHARE ? 'whole' : bands;
}

/**
 * Bands grown until no word straddles an edge: a band takes in every word it touches and every
 * word on those words' lines; bands that come to touch are joined. Sorted, disjoint.
 */
export function grow(bands: ReadonlyArray<RowBand>, words: readonly OcrWord[]): RowBand[] {
  let out = join(bands);
  for (;;) {
    const lines = new Set<number>();
    for (const w of words) if (out.some((b) => touches(w, b))) lines.add(w.line);
    const next = join([...out, ...words.filter((w) => lines.has(w.line)).map((w): RowBand => [w.y, w.y + w.height])]);
    if (next.length === out.length && next.every((b, i) => b[0] === out[i]![0] && b[1] === out[i]![1])) return next;
    out = next;
  }
}

const touches = (w: OcrWord, [t, b]: RowBand) => w.y < b && w.y + w.height > t;

function join(bands: ReadonlyArray<RowBand>): RowBand[] {
  const sorted = [...bands].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [t, b] of sorted) {
    const last = out[out.length - 1];
    if (last && t <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([t, b]);
  }
  return out;
}

/**
 * The new screen's words: `before`'s outside the bands, `read`'s whose centre is in one. Lines are
 * numbered again in reading order (by their top, then their left); words keep their order in a line.
 */
export function mergeWords(before: readonly OcrWord[], bands: readonly RowBand[], read: readonly OcrWord[]): OcrWord[] {
  const inBand = (w: OcrWord) => bands.some((b) => touches(w, b));
  const centreIn = (w: OcrWord) => bands.some(([t, b]) => w.y + w.height / 2 >= t && w.y + w.height / 2 < b);
  const lines = new Map<string, OcrWord[]>();
  const add = (key: string, w: OcrWord) => { const l = lines.get(key); if (l) l.push(w); else lines.set(key, [w]); };
  for (const w of before) if (!inBand(w)) add(`k${w.line}`, w);
  for (const w of read) if (centreIn(w)) add(`r${w.line}`, w);
  const ordered = [...lines.values()].map((ws) => ({ ws, top: Math.min(...ws.map((w) => w.y)), left: Math.min(...ws.map((w) => w.x)) }))
    .sort((a, b) => a.top - b.top || a.left - b.left);
  return ordered.flatMap(({ ws }, line) => ws.map((w) => ({ ...w, line })));
}
