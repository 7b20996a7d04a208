import { editDistance } from '../edit-distance.ts';
import { unionBox, wordsByLine, type Box } from './lines.ts';
import type { OcrWord, TextMatch } from './types.ts';

export interface FindOptions {
  /** Drop matches whose confidence (OCR confidence × closeness) is below this. Default 0. */
  minConfidence?: number;
}

/** Closeness for the three kinds of match; exact whole words always rank first. */
const INSIDE_WORD = 0.9;
const JOINED_SPACING = 0.95;
/** Edit-distance similarity an OCR slip must reach to count as a match. */
const MIN_SIMILARITY = 0.8;

interface Candidate { tier: number; line: number; start: number; end: number; match: TextMatch }

/**
 * Find `query` in recognised words, best first: case-insensitive, whitespace-normalised, across
 * consecutive words of one line. Tier 0: the query as whole words; tier 1: inside a longer word
 * (box cut in proportion to the characters); tier 2: OCR slips, also inside a longer word, and
 * split or merged words (similarity ≥ 0.8, confidence lowered by it). Overlapping matches keep only the best.
 */
export function findMatches(words: readonly OcrWord[], query: string, options: FindOptions = {}): TextMatch[] {
  const q = lower(query.trim().replace(/\s+/g, ' '));
  if (!q) return [];
  const minConfidence = options.minConfidence ?? 0;
  const candidates: Candidate[] = [];
  wordsByLine(words).forEach((line, lineNo) => {
    const text = lineText(line);
    exactMatches(line, text, q, lineNo, candidates);
    fuzzyMatches(line, text, q, lineNo, candidates);
  });
  candidates.sort((a, b) => a.tier - b.tier || b.match.confidence - a.match.confidence || a.match.y - b.match.y || a.match.x - b.match.x);
  const kept: Candidate[] = [];
  for (const c of candidates) {
    if (c.match.confidence < minConfidence) continue;
    if (kept.some((k) => k.line === c.line && k.start < c.end && c.start < k.end)) continue;
    kept.push(c);
  }
  return kept.map((c) => c.match);
}

interface LineText { original: string; low: string; starts: number[] }

function lineText(line: readonly OcrWord[]): LineText {
  const starts: number[] = [];
  let original = '';
  for (const w of line) {
    if (original) original += ' ';
    starts.push(original.length);
    original += w.text;
  }
  return { original, low: lower(original), starts };
}

function exactMatches(line: readonly OcrWord[], text: LineText, q: string, lineNo: number, out: Candidate[]): void {
  for (let at = text.low.indexOf(q); at !== -1; at = text.low.indexOf(q, at + q.length)) {
    const end = at + q.length;
    const whole = isBoundary(text.low[at - 1]) && isBoundary(text.low[end]);
    const closeness = whole ? 1 : INSIDE_WORD;
    out.push(candidate(whole ? 0 : 1, lineNo, line, text, at, end, closeness));
  }
}

function fuzzyMatches(line: readonly OcrWord[], text: LineText, q: string, lineNo: number, out: Candidate[]): void {
  const compactQuery = q.replace(/ /g, '');
  const maxWords = q.split(' ').length + 1;
  for (let i = 0; i < line.length; i++) {
    let compact = '';
    /** Where each character of `compact` sits in the line's text. */
    const at: number[] = [];
    for (let k = i; k < line.length && k < i + maxWords; k++) {
      const piece = lower(line[k]!.text);
      for (let c = 0; c < piece.length; c++) at.push(text.starts[k]! + c);
      compact += piece;
      // A word split by a cursor or a gap, with junk glued on ("wal" + "rus||" holds "walrus").
      const inside = k > i ? compact.indexOf(compactQuery) : -1;
      if (inside !== -1 && compact !== compactQuery) {
        const start = at[inside]!, end = at[inside + compactQuery.length - 1]! + 1;
        if (text.low.slice(start, end) !== q) out.push(candidate(2, lineNo, line, text, start, end, JOINED_SPACING * INSIDE_WORD));
      }
      if (compact.length > compactQuery.length * 1.25 + 2) break;
      const similarity = 1 - editDistance(compactQuery, compact) / Math.max(compactQuery.length, compact.length);
      if (similarity < MIN_SIMILARITY) continue;
      const start = text.starts[i]!;
      const end = text.starts[k]! + line[k]!.text.length;
      // exact hits are found above; here only slips and different spacing count
      if (text.low.slice(start, end) === q) continue;
      out.push(candidate(2, lineNo, line, text, start, end, similarity === 1 ? JOINED_SPACING : similarity));
    }
    if (!q.includes(' ')) slipInsideWord(line, i, text, q, lineNo, out);
  }
}

/** A one-word query with a slip inside a longer word ("root@vmhub" in "root@umhub:~#"). */
function slipInsideWord(line: readonly OcrWord[], i: number, text: LineText, q: string, lineNo: number, out: Candidate[]): void {
  const word = lower(line[i]!.text);
  if (word.length <= q.length) return;
  let best = { similarity: 0, at: 0, length: 0 };
  for (let length = q.length - 1; length <= q.length + 1; length++) {
    for (let at = 0; at + length <= word.length; at++) {
      const similarity = 1 - editDistance(q, word.slice(at, at + length)) / Math.max(q.length, length);
      if (similarity > best.similarity) best = { similarity, at, length };
    }
  }
  if (best.similarity < MIN_SIMILARITY || best.similarity === 1) return;
  const start = text.starts[i]! + best.at;
  out.push(candidate(2, lineNo, line, text, start, start + best.length, best.similarity * INSIDE_WORD));
}

function candidate(tier: number, lineNo: number, line: readonly OcrWord[], text: LineText, start: number, end: number, closeness: number): Candidate {
  const parts: Box[] = [];
  let confidence = 0;
  line.forEach((w, i) => {
    const ws = text.starts[i]!;
    const we = ws + w.text.length;
    if (we <= start || ws >= end) return;
    const f0 = (Math.max(start, ws) - ws) / w.text.length;
    const f1 = (Math.min(end, we) - ws) / w.text.length;
    const x0 = Math.floor(w.x + w.width * f0);
    const x1 = Math.ceil(w.x + w.width * f1);
    parts.push({ x: x0, y: w.y, width: Math.max(1, x1 - x0), height: w.height });
    confidence += w.confidence;
  });
  const box = unionBox(parts);
  const score = Math.round((confidence / parts.length) * closeness * 1000) / 1000;
  return { tier, line: lineNo, start, end, match: { text: text.original.slice(start, end), confidence: score, ...box } };
}

/** Lower-case one code unit at a time so indexes in the lowered text match the original. */
function lower(s: string): string {
  let out = '';
  for (const c of s) {
    const l = c.toLowerCase();
    out += l.length === c.length ? l : c;
  }
  return out;
}

function isBoundary(c: string | undefined): boolean {
  return c === undefined || !/[\p{L}\p{N}]/u.test(c);
}
