/**
 * Screen geometry. Screenshots are in PHYSICAL pixels: grim renders the whole layout at the
 * highest output scale (or one output at its own scale), so nothing the agent sees is blurred by
 * a downscale in the guest. Compositor geometry (window rects, cursor positions) is LOGICAL. One
 * factor links them: screen px = (logical − origin) × scale, with `origin` the logical top-left
 * of what the screenshot shows. The session's screen size is the screenshot's size, so core's
 * image → screen mapping lands on these pixels, and the pointer is driven with the same numbers
 * (vpointer.ts maps them over the layout box).
 */
import { hyprError } from './errors.ts';

export interface OutputGeom {
  name: string;
  /** Logical rect in the layout. */
  x: number; y: number; width: number; height: number;
  scale: number;
  focused: boolean;
}

export interface Layout {
  outputs: OutputGeom[];
  /** Logical bounding box of all active outputs (what a virtual pointer's absolute motion spans). */
  box: { x: number; y: number; width: number; height: number };
  /** Logical top-left of the screen (the whole layout, or the chosen output). */
  origin: { x: number; y: number };
  /** Screen pixels per logical pixel. */
  scale: number;
  /** Screen size in pixels (= the screenshot's size). */
  screen: { width: number; height: number };
  /** grim -o target when the screen is one output. */
  output?: string;
}

export function makeLayout(outputs: OutputGeom[], only?: string): Layout {
  if (outputs.length === 0) throw hyprError('INTERNAL', 'the compositor reports no active output: is the session headless without an output (WLR_HEADLESS_OUTPUTS=1)?');
  const x0 = Math.min(...outputs.map((o) => o.x)), y0 = Math.min(...outputs.map((o) => o.y));
  const x1 = Math.max(...outputs.map((o) => o.x + o.width)), y1 = Math.max(...outputs.map((o) => o.y + o.height));
  const box = { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  if (only !== undefined) {
    const o = outputs.find((v) => v.name === only);
    if (!o) throw hyprError('INVALID_REQUEST', `adapter option output "${only}" names no active output; outputs: ${outputs.map((v) => v.name).join(', ')}`);
    return { outputs, box, origin: { x: o.x, y: o.y }, scale: o.scale, screen: { width: Math.round(o.width * o.scale), height: Math.round(o.height * o.scale) }, output: o.name };
  }
  const scale = Math.max(...outputs.map((o) => o.scale));
  return { outputs, box, origin: { x: x0, y: y0 }, scale, screen: { width: Math.round(box.width * scale), height: Math.round(box.height * scale) } };
}

/** Screen pixel → logical layout coordinates. */
export function toLogical(layout: Layout, p: { x: number; y: number }): { x: number; y: number } {
  return { x: layout.origin.x + p.x / layout.scale, y: layout.origin.y + p.y / layout.scale };
}

/** Logical rect → screen pixels (window geometry as the agent sees it in a screenshot). */
export function toScreenRect(layout: Layout, r: { x: number; y: number; width: number; height: number }): { x: number; y: number; width: number; height: number } {
  return {
    x: Math.round((r.x - layout.origin.x) * layout.scale),
    y: Math.round((r.y - layout.origin.y) * layout.scale),
    width: Math.round(r.width * layout.scale),
    height: Math.round(r.height * layout.scale),
  };
}

/** sway `get_outputs`: rect is logical already. */
export function swayOutputs(json: unknown): OutputGeom[] {
  const list = Array.isArray(json) ? json as Array<Record<string, unknown>> : [];
  return list.filter((o) => o.active !== false && o.rect).map((o) => {
    const r = o.rect as { x: number; y: number; width: number; height: number };
    return { name: String(o.name), x: r.x, y: r.y, width: r.width, height: r.height, scale: Number(o.scale ?? 1) || 1, focused: o.focused === true };
  });
}

/**
 * Hyprland `j/monitors`: x/y logical, width/height the mode in physical pixels, so the logical
 * size is mode / scale (axes swapped for a 90°/270° transform — odd transform values).
 */
export function hyprMonitors(json: unknown): OutputGeom[] {
  const list = Array.isArray(json) ? json as Array<Record<string, unknown>> : [];
  return list.filter((m) => m.disabled !== true).map((m) => {
    const scale = Number(m.scale ?? 1) || 1;
    const rotated = Number(m.transform ?? 0) % 2 === 1;
    const w = Number(m.width), h = Number(m.height);
    return {
      name: String(m.name),
      x: Number(m.x), y: Number(m.y),
      width: Math.round((rotated ? h : w) / scale), height: Math.round((rotated ? w : h) / scale),
      scale, focused: m.focused === true,
    };
  });
}
