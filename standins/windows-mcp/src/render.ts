// Draws the simulated desktop into an RGBA buffer (then PNG): wallpaper, taskbar, windows bottom
// to top with title bars (the focused one blue), editor text, and the pointer. Text is drawn as
// one block glyph per character whose pattern comes from the character code — not a font, but a
// typed character, a moved window or a click visibly changes the image.
import { type Desktop, MENU_BAR, TASKBAR, TITLE_BAR } from './desktop.ts';
import { encodePng } from './png.ts';

type Rgb = [number, number, number];
const WALLPAPER: Rgb = [0, 90, 158];
const TASKBAR_RGB: Rgb = [32, 32, 32];
const FRAME: Rgb = [200, 200, 200];
const TITLE_FOCUSED: Rgb = [0, 103, 192];
const TITLE_IDLE: Rgb = [230, 230, 230];
const CLIENT: Rgb = [250, 250, 250];
const EDITOR: Rgb = [255, 255, 255];
const MENU: Rgb = [240, 240, 240];
const INK: Rgb = [20, 20, 20];
const CLOSE: Rgb = [196, 43, 28];

export const GLYPH_W = 9;
export const GLYPH_H = 16;

class Canvas {
  readonly rgba: Uint8Array;
  readonly w: number;
  readonly h: number;
  readonly s: number;
  constructor(w: number, h: number, s: number) {
    this.w = w;
    this.h = h;
    this.s = s;
    this.rgba = new Uint8Array(w * h * 4);
  }
  /** Fills a rectangle given in virtual-desktop pixels. */
  rect(x: number, y: number, w: number, h: number, [r, g, b]: Rgb): void {
    const x0 = Math.max(0, Math.floor(x * this.s));
    const y0 = Math.max(0, Math.floor(y * this.s));
    const x1 = Math.min(this.w, Math.floor((x + w) * this.s));
    const y1 = Math.min(this.h, Math.floor((y + h) * this.s));
    for (let yy = y0; yy < y1; yy++) {
      let o = (yy * this.w + x0) * 4;
      for (let xx = x0; xx < x1; xx++, o += 4) {
        this.rgba[o] = r;
        this.rgba[o + 1] = g;
        this.rgba[o + 2] = b;
        this.rgba[o + 3] = 255;
      }
    }
  }
  /** One 5×7 block glyph per character in a GLYPH_W×GLYPH_H cell. */
  text(x: number, y: number, s: string, color: Rgb, maxWidth = Infinity): void {
    let cx = x;
    for (const ch of s) {
      if (cx + GLYPH_W > x + maxWidth) break;
      const code = ch.codePointAt(0) ?? 0;
      if (ch !== ' ') {
        let bits = Math.imul(code ^ 0x5bd1e995, 0x9e3779b1) >>> 0;
        for (let i = 0; i < 35; i++) {
          if (i % 32 === 0 && i) bits = Math.imul(bits ^ code, 0x85ebca6b) >>> 0;
          if ((bits >>> (i % 32)) & 1 || i % 6 === 0) this.rect(cx + 1 + (i % 5) * 1.4, y + 3 + Math.floor(i / 5) * 1.4, 1.4, 1.4, color);
        }
      }
      cx += GLYPH_W;
    }
  }
}

/** Renders the desktop at `width`×`height` output pixels (the virtual desktop scaled to fit). */
export function renderDesktop(d: Desktop, width: number, height: number): Buffer {
  const c = new Canvas(width, height, width / d.screen.width);
  c.rect(0, 0, d.screen.width, d.screen.height, WALLPAPER);
  c.rect(0, d.screen.height - TASKBAR, d.screen.width, TASKBAR, TASKBAR_RGB);
  for (const w of d.windows) {
    if (w.status === 'Minimized') continue;
    c.rect(w.x - 1, w.y - 1, w.width + 2, w.height + 2, FRAME);
    c.rect(w.x, w.y, w.width, w.height, CLIENT);
    c.rect(w.x, w.y, w.width, TITLE_BAR, w.focused ? TITLE_FOCUSED : TITLE_IDLE);
    c.text(w.x + 12, w.y + 8, w.title, w.focused ? [255, 255, 255] : INK, w.width - 46 * 3 - 16);
    c.rect(w.x + w.width - 46, w.y, 46, TITLE_BAR, CLOSE);
    for (const el of d.elements(w)) {
      if (el.controlType === 'Menu Item') c.text(el.x + 4, el.y + 6, el.name, INK);
      if (el.controlType === 'List Item') c.text(el.x + 4, el.y + 4, el.name, INK);
    }
    if (w.text !== undefined) {
      c.rect(w.x, w.y + TITLE_BAR, w.width, MENU_BAR, MENU);
      const top = w.y + TITLE_BAR + MENU_BAR;
      c.rect(w.x + 4, top, w.width - 8, w.y + w.height - top - 4, EDITOR);
      const cols = Math.max(1, Math.floor((w.width - 24) / GLYPH_W));
      const rows = Math.max(1, Math.floor((w.y + w.height - top - 16) / GLYPH_H));
      const lines = w.text.split(/\r?\n/).flatMap((l) => (l.length ? l.match(new RegExp(`.{1,${cols}}`, 'gu')) ?? [''] : ['']));
      const first = Math.min(w.scroll.vertical * 3, Math.max(0, lines.length - 1));
      lines.slice(first, first + rows).forEach((l, i) => c.text(w.x + 12, top + 8 + i * GLYPH_H, l, INK));
      if (w.focused) c.rect(w.x + 12 + Math.min(cols, [...(lines[lines.length - 1] ?? '')].length) * GLYPH_W, top + 8 + Math.min(rows - 1, lines.length - 1 - first) * GLYPH_H, 2, GLYPH_H, INK);
    }
  }
  // pointer: a white-edged black arrow block at its hot spot
  c.rect(d.pointer.x, d.pointer.y, 14, 20, [255, 255, 255]);
  c.rect(d.pointer.x + 2, d.pointer.y + 2, 10, 16, [0, 0, 0]);
  return encodePng(width, height, c.rgba);
}
