/**
 * X keysym names as the common language of key names: X11 presses their values (XTEST), Wayland's
 * virtual keyboards and wtype take the same names, so every adapter that speaks keysyms checks a
 * vm_key name against one table (keysym-names.ts, generated from X.org's headers) and one alias
 * list, BEFORE anything runs (tools that ignore unknown names would report success for a typo).
 */
import { KEY_NAME_ALIASES, PUNCTUATION_KEYSYMS } from './keys.ts';
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

/** What agents and other tools call keys, mapped to X keysym names: the modifiers, then the kit's names. */
export const KEYSYM_ALIASES: Readonly<Record<string, string>> = {
  ctrl: 'Control_L', control: 'Control_L', ctl: 'Control_L', lctrl: 'Control_L', rctrl: 'Control_R',
  shift: 'Shift_L', lshift: 'Shift_L', rshift: 'Shift_R',
  alt: 'Alt_L', option: 'Alt_L', opt: 'Alt_L', lalt: 'Alt_L', ralt: 'Alt_R', altgr: 'ISO_Level3_Shift',
  super: 'Super_L', win: 'Super_L', windows: 'Super_L', cmd: 'Super_L', command: 'Super_L', meta: 'Meta_L', hyper: 'Hyper_L',
  ...KEY_NAME_ALIASES,
  prtscr: 'Print', break: 'Break',
};

/** Resolve one key name to an X keysym name, or undefined when it is not a key. */
export function resolveKeysym(key: string): string | undefined {
  if (key.length === 0) return undefined;
  if (NAMES.has(key)) return key;
  const alias = KEYSYM_ALIASES[key.toLowerCase()];
  if (alias) return alias;
  const chars = [...key];
  if (chars.length === 1) {
    const punct = PUNCTUATION_KEYSYMS[key];
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

/** Xlib's keysym of a Unicode code point: printable Latin-1 is its own keysym, anything else 0x01000000 + it. */
export function unicodeKeysym(cp: number): number {
  return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) ? cp : 0x1000000 + cp;
}

/** The value of a keysym name resolveKeysym returned (a table name, or Xlib's "U<hex>"); undefined for anything else. */
export function keysymValue(name: string): number | undefined {
  const value = VALUES.get(name);
  if (value !== undefined) return value;
  const unicode = /^U([0-9A-F]{4,6})$/.exec(name);
  return unicode ? unicodeKeysym(Number.parseInt(unicode[1]!, 16)) : undefined;
}
