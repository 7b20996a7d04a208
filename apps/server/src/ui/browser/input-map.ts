/**
 * The pure part of the lease page's input handling: which vm_* input a browser event becomes.
 * No DOM here, so test/ui-files.test.ts imports this very module (there is no browser in it).
 *
 *   keyAction(event)                           → {type: "type", text} | {type: "key", keys} | null
 *   screenPoint(rect, clientX, clientY, frame) → {x, y} in SCREEN pixels, or null off the image
 *   scrollAction(deltaX, deltaY, deltaMode)    → {direction, amount} | null
 *
 * Key names are the ones vm_key takes (X keysym names and its aliases), so the same chord works
 * on every adapter: Enter → Return, Backspace → BackSpace, ArrowLeft → Left, ctrl+a → ctrl+a.
 */

/** Geometry of a frame: the image's own pixels and the screen it shows (X-Screen-*, X-Image-Scale). */
export interface FrameGeometry {
  naturalWidth: number;
  naturalHeight: number;
  /** Image pixels per screen pixel; 0 when the answer did not say. */
  scale: number;
  screenWidth: number;
  screenHeight: number;
}

/** The parts of a KeyboardEvent the mapping reads. */
export interface KeyLike {
  key: string;
  code?: string;
  ctrlKey?: boolean;
  altKey?: boolean;
  shiftKey?: boolean;
  metaKey?: boolean;
  getModifierState?(key: string): boolean;
}

/** The parts of a DOMRect the mapping reads. */
export interface RectLike { left: number; top: number; width: number; height: number }

export type KeyAction = { type: 'type'; text: string } | { type: 'key'; keys: string };

// DOM KeyboardEvent.key values → vm_key names; keys not listed keep their DOM name (F1…F24).
const KEY_NAMES: Record<string, string> = {
  Enter: 'Return', Backspace: 'BackSpace', Tab: 'Tab', Escape: 'Escape', Delete: 'Delete',
  Insert: 'Insert', Home: 'Home', End: 'End', PageUp: 'Page_Up', PageDown: 'Page_Down',
  ArrowLeft: 'Left', ArrowRight: 'Right', ArrowUp: 'Up', ArrowDown: 'Down',
  ContextMenu: 'Menu', PrintScreen: 'Print', Pause: 'Pause', ' ': 'space',
};
// Pressed alone these only modify the next key; the chord carries them (ctrl+a).
const MODIFIER_KEYS = new Set(['Control', 'Shift', 'Alt', 'AltGraph', 'Meta', 'OS', 'Super', 'Hyper', 'CapsLock', 'NumLock', 'ScrollLock', 'Fn', 'FnLock']);
// Chords the browser turns into a paste event: that event carries the person's clipboard.
const PASTE_CHORDS = new Set(['ctrl+v', 'ctrl+shift+v', 'shift+Insert', 'super+v']);

export function keyAction(e: KeyLike): KeyAction | null {
  const key = e.key;
  if (!key || key === 'Unidentified' || key === 'Dead' || key === 'Process' || MODIFIER_KEYS.has(key)) return null;
  const altGraph = typeof e.getModifierState === 'function' && e.getModifierState('AltGraph');
  const chord = (e.ctrlKey || e.altKey || e.metaKey) && !altGraph;
  // A character typed without a chord modifier (shift and AltGr already shaped it) is text.
  if (!chord && key.length === 1) return { type: 'type', text: key };
  let name = Object.hasOwn(KEY_NAMES, key) ? KEY_NAMES[key] : undefined;
  if (!name) {
    if (key.length === 1) {
      // With a modifier the browser may report a shifted or composed character (ctrl+shift+A,
      // alt+a = "å" on a Mac layout); the physical key is what the chord means.
      const code = /^Key([A-Z])$/.exec(e.code || '') || /^Digit([0-9])$/.exec(e.code || '');
      name = code ? code[1].toLowerCase() : key.toLowerCase();
    } else if (/^F[0-9]{1,2}$/.test(key)) {
      name = key;
    } else {
      return null;
    }
  }
  const mods: string[] = [];
  if (e.ctrlKey && !altGraph) mods.push('ctrl');
  if (e.altKey && !altGraph) mods.push('alt');
  // Shift is part of a chord only where it is not already in the character (shift+Tab, ctrl+shift+t).
  if (e.shiftKey && (name.length > 1 || chord)) mods.push('shift');
  if (e.metaKey) mods.push('super');
  mods.push(name);
  return { type: 'key', keys: mods.join('+') };
}

/** A chord the page leaves to the browser, whose paste event sends the person's clipboard. */
export function isPasteChord(action: KeyAction): boolean {
  return action.type === 'key' && PASTE_CHORDS.has(action.keys);
}

// frame: the geometry of the frame on display. X-Image-Scale is image pixels per screen pixel
// (core's shapeScreenshot), so a point on the image maps to (image pixel / scale); without it the
// screen size does the same job.
export function screenPoint(rect: RectLike | null, clientX: number, clientY: number, frame: FrameGeometry | null): { x: number; y: number } | null {
  if (!frame || !rect || rect.width <= 0 || rect.height <= 0) return null;
  const fx = (clientX - rect.left) / rect.width;
  const fy = (clientY - rect.top) / rect.height;
  if (fx < 0 || fy < 0 || fx > 1 || fy > 1) return null;
  let x: number;
  let y: number;
  if (frame.scale > 0 && frame.naturalWidth > 0 && frame.naturalHeight > 0) {
    x = fx * frame.naturalWidth / frame.scale;
    y = fy * frame.naturalHeight / frame.scale;
  } else if (frame.screenWidth > 0 && frame.screenHeight > 0) {
    x = fx * frame.screenWidth;
    y = fy * frame.screenHeight;
  } else {
    return null;
  }
  const maxX = frame.screenWidth > 0 ? frame.screenWidth - 1 : Infinity;
  const maxY = frame.screenHeight > 0 ? frame.screenHeight - 1 : Infinity;
  return { x: Math.max(0, Math.min(maxX, Math.floor(x))), y: Math.max(0, Math.min(maxY, Math.floor(y))) };
}

// One wheel notch is ~100 px (deltaMode 0) or 3 lines (deltaMode 1); a page counts as 10 notches.
export function scrollAction(deltaX: number, deltaY: number, deltaMode: number): { direction: 'up' | 'down' | 'left' | 'right'; amount: number } | null {
  const unit = deltaMode === 1 ? 3 : deltaMode === 2 ? 0.1 : 100;
  const vertical = Math.abs(deltaY) >= Math.abs(deltaX);
  const delta = vertical ? deltaY : deltaX;
  if (delta === 0) return null;
  const amount = Math.max(1, Math.min(10, Math.round(Math.abs(delta) / unit)));
  const direction = vertical ? (delta > 0 ? 'down' : 'up') : (delta > 0 ? 'right' : 'left');
  return { direction, amount };
}
