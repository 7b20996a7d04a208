/**
 * OCR on a live capture, shared by vm_find_text, vm_click {text}, vm_wait {for: "text"} and
 * set-of-mark screenshots: the engine comes from the host (none → CAPABILITY_UNAVAILABLE with its
 * install hint), reads screen pixels, and its boxes are moved to screen pixels (then, for the
 * agent, into the image space of the lease's latest screenshot).
 */
import { editDistance } from '../edit-distance.ts';
import { VmhubError } from '../errors.ts';
import { textElements } from '../ocr/elements.ts';
import { findMatches } from '../ocr/match.ts';
import type { OcrEngine, OcrWord, TextMatch } from '../ocr/types.ts';
import type { ScreenMapping } from '../screen-mapping.ts';
import type { RegionPixels } from '../screenshot.ts';
import { ocrImage } from './frame.ts';
import type { ToolHost } from './types.ts';

/** Below this, a match is a guess: find_text, click {text} and wait {for: "text"} skip it. */
export const DEFAULT_MIN_CONFIDENCE = 0.5;

const NO_ENGINE_HINT = 'Install tesseract on the vmhub host (Debian/Ubuntu: apt install tesseract-ocr tesseract-ocr-eng) and restart the server; meanwhile use vm_screenshot and click by coordinates.';

export interface Box { x: number; y: number; width: number; height: number }

/** The host's OCR engine, or CAPABILITY_UNAVAILABLE saying how to get one. */
export async function ocrEngine(host: ToolHost, tool: string): Promise<OcrEngine> {
  const shots = host.screenshots;
  if (!shots?.ocr) throw new VmhubError('CAPABILITY_UNAVAILABLE', `${tool}: this vmhub server has no OCR engine`, { hint: NO_ENGINE_HINT });
  try {
    return await shots.ocr();
  } catch (err) {
    const e = VmhubError.is(err) ? err : undefined;
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `${tool}: no OCR engine: ${err instanceof Error ? err.message : String(err)}`, { hint: e?.hint && e.code === 'CAPABILITY_UNAVAILABLE' ? e.hint : NO_ENGINE_HINT, cause: err });
  }
}

/** Recognise the words of decoded region pixels; boxes in screen pixels. */
export async function readWords(engine: OcrEngine, px: RegionPixels, signal: AbortSignal): Promise<OcrWord[]> {
  const words = await engine.recognize(ocrImage(px), { signal });
  return words.map((w) => ({ ...w, x: w.x + px.region.x, y: w.y + px.region.y }));
}

export function matchesOf(words: readonly OcrWord[], text: string, minConfidence = DEFAULT_MIN_CONFIDENCE): TextMatch[] {
  return findMatches(words, text, { minConfidence });
}

const tenth = (n: number) => Math.round(n * 10) / 10;

/**
 * A screen-pixel box in the image space of `mapping` (none: screen pixels), rounded to 0.1 px;
 * undefined when its centre is off that image, where the agent could not click it.
 */
export function toImageSpace<T extends Box>(box: T, mapping: ScreenMapping | undefined): T | undefined {
  if (!mapping) return { ...box, x: tenth(box.x), y: tenth(box.y), width: tenth(box.width), height: tenth(box.height) };
  const x = (box.x - mapping.origin.x) * mapping.scale, y = (box.y - mapping.origin.y) * mapping.scale;
  const width = box.width * mapping.scale, height = box.height * mapping.scale;
  const cx = x + width / 2, cy = y + height / 2;
  if (cx < 0 || cy < 0 || cx >= mapping.width || cy >= mapping.height) return undefined;
  return { ...box, x: tenth(x), y: tenth(y), width: tenth(width), height: tenth(height) };
}

/** A match as tools return it: image space of the latest screenshot, confidence to 0.001. */
export function shownMatch(m: TextMatch, mapping: ScreenMapping | undefined): TextMatch | undefined {
  const box = toImageSpace(m, mapping);
  return box && { text: m.text, confidence: Math.round(m.confidence * 1000) / 1000, x: box.x, y: box.y, width: box.width, height: box.height };
}

/** The centre of a screen-pixel box, as a pixel on the screen. */
export function centre(box: Box, screen: { width: number; height: number }): { x: number; y: number } {
  return {
    x: Math.max(0, Math.min(screen.width - 1, Math.floor(box.x + box.width / 2))),
    y: Math.max(0, Math.min(screen.height - 1, Math.floor(box.y + box.height / 2))),
  };
}

/** What OCR read that comes closest to `query`: a few texts for a NOT_FOUND message. */
export function nearestTexts(words: readonly OcrWord[], query: string, count = 5): string[] {
  const q = query.trim().toLowerCase();
  const seen = new Set<string>();
  const scored: { text: string; score: number }[] = [];
  for (const t of [...textElements(words).map((e) => e.text), ...words.map((w) => w.text)]) {
    const text = t.trim();
    if (!text || seen.has(text)) continue;
    seen.add(text);
    scored.push({ text, score: similarity(q, text.toLowerCase()) });
  }
  return scored.sort((a, b) => b.score - a.score).slice(0, count).map((s) => s.text.length > 40 ? `${s.text.slice(0, 40)}…` : s.text);
}

/** 1 − edit distance / longer length, against the best-aligned part of a longer text. */
function similarity(q: string, text: string): number {
  if (text.includes(q)) return 1;
  const d = editDistance(q, text.length > q.length * 2 ? bestWindow(q, text) : text);
  return 1 - d / Math.max(q.length, 1);
}

function bestWindow(q: string, text: string): string {
  let best = text.slice(0, q.length), bestD = Infinity;
  for (let i = 0; i + q.length <= text.length; i++) {
    const w = text.slice(i, i + q.length);
    const d = editDistance(q, w);
    if (d < bestD) { bestD = d; best = w; }
  }
  return best;
}
