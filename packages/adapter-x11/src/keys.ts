/**
 * Key-chord validation for vm_key: every key is checked against the shipped keysym table (plus
 * friendly aliases) BEFORE anything runs, because xdotool ignores unknown names and would report
 * success for a typo.
 */
import type { Modifier } from '@vmhub/core';
import { x11Error } from './errors.ts';
import { KEYSYM_TABLE } from './keysym-names.ts';

/** Keysym name → value, from the generated table (entries in value order, each a step from the last). */
const VALUES = (() => {
  const map = new Map<string, number>();
  let value = 0;
  for (const entry of KEYSYM_TABLE.split(' ')) {
    const m = /^([A-Za-z0-9_]+)(=|:([0-9a-z]+))?$/.exec(entry)!;
    value += m[2] === '=' ? 0 : m[3] ? Number.parseInt(m[3], 36) : 1;
    map.set(m[1]!, value);
  }
  return map;
})();
const NAMES = new Set(VALUES.keys());

/** Lowercased multi-letter name → canonical keysym, for the unambiguous ones. */
const FOLDED = (() => {
  const byLower = new Map<string, string | null>();
  for (const name of NAMES) {
    if (name.length < 2) continue;
    const lower = name.toLowerCase();
    byLower.set(lower, byLower.has(lower) ? null : name);
  }
  return byLower;
})();

/** What agents and other tools call keys, mapped to X keysym names. */
export const KEY_ALIASES: Readonly<Record<string, string>> = {
  ctrl: 'Control_L', control: 'Control_L', ctl: 'Control_L', lctrl: 'Control_L', rctrl: 'Control_R',
  shift: 'Shift_L', lshift: 'Shift_L', rshift: 'Shift_R',
  alt: 'Alt_L', option: 'Alt_L', opt: 'Alt_L', lalt: 'Alt_L', ralt: 'Alt_R', altgr: 'ISO_Level3_Shift',
  super: 'Super_L', win: 'Super_L', windows: 'Super_L', cmd: 'Super_L', command: 'Super_L', meta: 'Meta_L', hyper: 'Hyper_L',
  enter: 'Return', return: 'Return', ret: 'Return', esc: 'Escape', escape: 'Escape',
  backspace: 'BackSpace', bs: 'BackSpace', del: 'Delete', delete: 'Delete', ins: 'Insert', insert: 'Insert',
  tab: 'Tab', space: 'space', spacebar: 'space',
  pageup: 'Prior', pgup: 'Prior', page_up: 'Prior', pagedown: 'Next', pgdn: 'Next', page_down: 'Next',
  home: 'Home', end: 'End', up: 'Up', down: 'Down', left: 'Left', right: 'Right',
  arrowup: 'Up', arrowdown: 'Down', arrowleft: 'Left', arrowright: 'Right',
  capslock: 'Caps_Lock', numlock: 'Num_Lock', scrolllock: 'Scroll_Lock',
  print: 'Print', printscreen: 'Print', prtsc: 'Print', prtscr: 'Print', pause: 'Pause', break: 'Break', menu: 'Menu', apps: 'Menu',
  plus: 'plus', minus: 'minus', dash: 'minus', equals: 'equal', comma: 'comma', period: 'period', dot: 'period', slash: 'slash',
  backslash: 'backslash', semicolon: 'semicolon', quote: 'apostrophe', backquote: 'grave', backtick: 'grave', tilde: 'asciitilde',
  volumeup: 'XF86AudioRaiseVolume', volumedown: 'XF86AudioLowerVolume', mute: 'XF86AudioMute',
};

/** Printable ASCII characters that are not themselves keysym names. */
const PUNCTUATION: Readonly<Record<string, string>> = {
  ' ': 'space', '!': 'exclam', '"': 'quotedbl', '#': 'numbersign', '$': 'dollar', '%': 'percent', '&': 'ampersand',
  "'": 'apostrophe', '(': 'parenleft', ')': 'parenright', '*': 'asterisk', '+': 'plus', ',': 'comma', '-': 'minus',
  '.': 'period', '/': 'slash', ':': 'colon', ';': 'semicolon', '<': 'less', '=': 'equal', '>': 'greater',
  '?': 'question', '@': 'at', '[': 'bracketleft', '\\': 'backslash', ']': 'bracketright', '^': 'asciicircum',
  '_': 'underscore', '`': 'grave', '{': 'braceleft', '|': 'bar', '}': 'braceright', '~': 'asciitilde',
};

/** Resolve one key name to an X keysym name, or undefined when it is not a key. */
export function resolveKey(key: string): string | undefined {
  if (key.length === 0) return undefined;
  if (NAMES.has(key)) return key;
  const alias = KEY_ALIASES[key.toLowerCase()];
  if (alias) return alias;
  const chars = [...key];
  if (chars.length === 1) {
    const punct = PUNCTUATION[key];
    if (punct) return punct;
    const cp = key.codePointAt(0)!;
    // Any other single visible character: Xlib's "U<hex>" Unicode keysym.
    if (cp > 0x20 && cp !== 0x7f && !(cp >= 0x80 && cp < 0xa0)) return `U${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    return undefined;
  }
  const unicode = /^U\+?([0-9A-Fa-f]{4,6})$/.exec(key);
  if (unicode) {
    const cp = Number.parseInt(unicode[1]!, 16);
    if (cp <= 0x10ffff) return `U${unicode[1]!.toUpperCase()}`;
  }
  const folded = FOLDED.get(key.toLowerCase());
  return folded ?? undefined;
}

/**
 * The value of a keysym name that resolveKey returned: a table name, or Xlib's "U<hex>" (see
 * unicodeKeysym).
 */
export function keysymOf(name: string): number {
  const value = VALUES.get(name);
  if (value !== undefined) return value;
  const unicode = /^U([0-9A-F]{4,6})$/.exec(name);
  if (!unicode) throw x11Error('INVALID_REQUEST', `"${name}" is not a keysym name`);
  return unicodeKeysym(Number.parseInt(unicode[1]!, 16));
}

/** The keysym names of the click modifiers (what xdotool is given; the XTEST path presses their values). */
export const MODIFIER_KEYSYMS: Readonly<Record<Modifier, string>> = { ctrl: 'Control_L', shift: 'Shift_L', alt: 'Alt_L', super: 'Super_L' };

/** Xlib's keysym of a Unicode code point: printable Latin-1 is its own keysym, anything else 0x01000000 + it. */
export function unicodeKeysym(cp: number): number {
  return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) ? cp : 0x1000000 + cp;
}

/** The keysym typing presses for a character: Return and Tab for "\n" and "\t", else its Unicode keysym. */
export function charKeysym(ch: string): number {
  if (ch === '\n') return 0xff0d;
  if (ch === '\t') return 0xff09;
  return unicodeKeysym(ch.codePointAt(0)!);
}

/**
 * Parse "ctrl+shift+t Return F5" into xdotool chords (["Control_L+Shift_L+t", "Return", "F5"]).
 * Throws INVALID_REQUEST naming the first bad key.
 */
export function parseKeys(keys: string): string[] {
  const chords = keys.trim().split(/\s+/).filter(Boolean);
  if (chords.length === 0) throw x11Error('INVALID_REQUEST', 'keys is empty: give a key or chord such as "Return" or "ctrl+shift+t"');
  return chords.map((chord) => {
    // "ctrl++" means ctrl and the plus key: split only on a "+" that is followed by something.
    // "U+2713" names one key: fold it to "U2713" before splitting on "+".
    const folded = chord.replace(/(^|\+)U\+([0-9A-Fa-f]{4,6})(?=$|\+)/g, '$1U$2');
    const parts = folded.length === 1 ? [folded] : folded.split(/\+(?=.)/);
    return parts.map((part) => {
      const sym = resolveKey(part);
      if (!sym) {
        throw x11Error('INVALID_REQUEST', `unknown key "${part}" in "${chord}": use X keysym names (Return, Escape, F5, Page_Up, a, ...) or aliases (ctrl, alt, shift, super, enter, esc), joined by "+"; separate chords with spaces`, {
          details: { key: part, chord },
        });
      }
      return sym;
    }).join('+');
  });
}
