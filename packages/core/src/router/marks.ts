/**
 * Set-of-mark screenshots: every text element OCR reads in the captured region, plus the elements
 * of the adapter's inspect tree that carry bounds and sit where no text mark is, numbered 1..n in
 * reading order and drawn as numbered boxes. Marks are kept in screen pixels on the lease
 * (vm_click {mark}) and returned in the image's pixels.
 */
import { textElements } from '../ocr/elements.ts';
import type { ScreenMapping } from '../screen-mapping.ts';
import type { RegionPixels } from '../screenshot.ts';
import type { ElementNode } from '../shapes.ts';
import { ocrEngine, readWords, toImageSpace, type Box } from './find-text.ts';
import type { ScreenMark, ToolHost } from './types.ts';
import type { BoundLease } from './vm-tools.ts';

/** More boxes than this bury the screen and cost the agent more tokens than they save. */
export const MAX_MARKS = 150;
/** Containers (windows, panels) are not targets: an inspect element over this share of the region is skipped. */
const MAX_ELEMENT_SHARE = 0.25;
const TARGET_ROLES = /button|check|radio|menu|link|entry|edit|text|combo|slider|spin|tab|list ?item|tree ?item|toggle|icon|image|switch/i;

export async function detectMarks(b: BoundLease, host: ToolHost, px: RegionPixels): Promise<ScreenMark[]> {
  const engine = await ocrEngine(host, 'vm_screenshot {marks}');
  const words = await readWords(engine, px, b.context.signal);
  const boxes: Omit<ScreenMark, 'id'>[] = textElements(words).map((e) => ({ text: e.text, x: e.x, y: e.y, width: e.width, height: e.height }));
  if (b.adapter?.capabilities.includes('inspect') && b.session.inspect) {
    const tree = await b.session.inspect(b.context, { max_depth: 12, scope: 'desktop', max_nodes: 2000, timeout_ms: 3000 }).then((r) => r.tree, () => undefined);
    // Smallest first, so a button wins over the toolbar around it.
    for (const el of tree ? elementsIn(tree, px.region).sort((p, q) => p.width * p.height - q.width * q.height) : []) {
      if (!boxes.some((m) => overlaps(m, el))) boxes.push(el);
    }
  }
  return readingOrder(boxes).slice(0, MAX_MARKS).map((m, i) => ({ id: i + 1, ...m }));
}

/** Elements with bounds inside `region`, clipped to it. */
function elementsIn(root: ElementNode, region: Box): Omit<ScreenMark, 'id'>[] {
  const out: Omit<ScreenMark, 'id'>[] = [];
  const limit = region.width * region.height * MAX_ELEMENT_SHARE;
  const visit = (n: ElementNode) => {
    if (n.x !== undefined && n.y !== undefined && n.width && n.height && n.width > 0 && n.height > 0) {
      const clip = intersect({ x: n.x, y: n.y, width: n.width, height: n.height }, region);
      const name = n.name?.trim();
      if (clip && clip.width * clip.height <= limit && (name || TARGET_ROLES.test(n.role))) out.push({ text: name || n.role, ...clip });
    }
    n.children?.forEach(visit);
  };
  visit(root);
  return out;
}

function intersect(a: Box, b: Box): Box | undefined {
  const x = Math.max(a.x, b.x), y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width), bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : undefined;
}

const overlaps = (a: Box, b: Box) => intersect(a, b) !== undefined;

/** Rows top to bottom (boxes whose vertical centres are within half a height share a row), left to right. */
function readingOrder<T extends Box>(boxes: T[]): T[] {
  const rows: { cy: number; h: number; items: T[] }[] = [];
  for (const box of [...boxes].sort((p, q) => p.y + p.height / 2 - (q.y + q.height / 2))) {
    const cy = box.y + box.height / 2;
    const row = rows.find((r) => Math.abs(r.cy - cy) < Math.min(r.h, box.height) / 2);
    if (row) row.items.push(box);
    else rows.push({ cy, h: box.height, items: [box] });
  }
  return rows.sort((p, q) => p.cy - q.cy).flatMap((r) => r.items.sort((p, q) => p.x - q.x));
}

/** Marks as the agent gets them: in the image's pixels. */
export function marksInImage(marks: readonly ScreenMark[], mapping: ScreenMapping): ScreenMark[] {
  return marks.flatMap((m) => { const box = toImageSpace(m, mapping); return box ? [box] : []; });
}

const LABEL_FONT = 12;
const LABEL_H = 15;
/** One colour that reads on light and dark themes, with a dark halo around every stroke. */
const INK = '#e8175d';

/** The SVG drawn over a marks screenshot: a box and a numbered tag per mark. */
export function marksOverlay(marks: readonly ScreenMark[], mapping: ScreenMapping): Buffer {
  const parts: string[] = [];
  for (const m of marksInImage(marks, mapping)) {
    const x = Math.max(0, m.x), y = Math.max(0, m.y);
    const w = Math.max(2, Math.min(m.width, mapping.width - x)), h = Math.max(2, Math.min(m.height, mapping.height - y));
    const label = String(m.id), lw = 6 + label.length * 7.5;
    const lx = Math.max(0, Math.min(x, mapping.width - lw));
    const ly = y >= LABEL_H ? y - LABEL_H : Math.min(y, Math.max(0, mapping.height - LABEL_H));
    parts.push(
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="#000" stroke-opacity="0.55" stroke-width="4"/>`,
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${INK}" stroke-width="2"/>`,
      `<rect x="${lx}" y="${ly}" width="${lw}" height="${LABEL_H}" fill="${INK}" stroke="#000" stroke-opacity="0.55"/>`,
      `<text x="${lx + 3}" y="${ly + LABEL_H - 3.5}" font-family="DejaVu Sans, Arial, sans-serif" font-size="${LABEL_FONT}" font-weight="bold" fill="#fff">${label}</text>`,
    );
  }
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${mapping.width}" height="${mapping.height}">${parts.join('')}</svg>`);
}
