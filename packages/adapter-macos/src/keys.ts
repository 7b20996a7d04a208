/**
 * Key names → X keysyms (what RFB KeyEvents carry) and → macOS virtual key codes (what System
 * Events' `key code` takes, for the in-guest path). Every name is checked before anything is sent,
 * so a typo is an INVALID_REQUEST, not a silent no-op.
 *
 * macOS modifiers over RFB: cmd/command/super/win/meta → the keysym in `command_keysym` (Super_L
 * by default: Lume's client sends Super_L for Command to Apple's hypervisor VNC server, and
 * RealVNC documents the Windows key — the Super keysyms — as Command on a Mac); option/alt → Alt_L;
 * ctrl → Control_L; shift → Shift_L. `delete` is X's Delete (forward delete); the Mac's ⌫ is
 * `backspace`.
 */
import { splitChords } from '@vmhub/core/adapter-kit';
import { errors, macError } from './errors.ts';

export type Modifier = 'cmd' | 'shift' | 'option' | 'ctrl';

export interface KeyRef {
  /** The name as the chord spelled it. */
  name: string;
  keysym: number;
  /** A modifier key (held for the chord). */
  modifier?: Modifier;
  /** macOS virtual key code, for System Events `key code`. */
  macCode?: number;
  /** A printable character, for System Events `keystroke`. */
  char?: string;
}

const MODIFIERS: Record<string, Modifier> = {
  cmd: 'cmd', command: 'cmd', super: 'cmd', win: 'cmd', windows: 'cmd', meta: 'cmd', super_l: 'cmd', super_r: 'cmd', meta_l: 'cmd', meta_r: 'cmd',
  shift: 'shift', lshift: 'shift', rshift: 'shift', shift_l: 'shift', shift_r: 'shift',
  alt: 'option', option: 'option', opt: 'option', alt_l: 'option', alt_r: 'option',
  ctrl: 'ctrl', control: 'ctrl', ctl: 'ctrl', control_l: 'ctrl', control_r: 'ctrl',
};
const MODIFIER_KEYSYM: Record<Exclude<Modifier, 'cmd'>, number> = { shift: 0xffe1, option: 0xffe9, ctrl: 0xffe3 };
export const COMMAND_KEYSYMS = { Super_L: 0xffeb, Meta_L: 0xffe7 } as const;
export const SHIFT_L = 0xffe1;

/** Named keys: keysym and macOS key code (Events.h kVK_*). */
const NAMED: Record<string, [number, number | undefined]> = {
  return: [0xff0d, 36], enter: [0xff0d, 36], ret: [0xff0d, 36], kp_enter: [0xff8d, 76],
  tab: [0xff09, 48], space: [0x20, 49], spacebar: [0x20, 49],
  backspace: [0xff08, 51], bs: [0xff08, 51], delete: [0xffff, 117], del: [0xffff, 117], forwarddelete: [0xffff, 117],
  escape: [0xff1b, 53], esc: [0xff1b, 53], insert: [0xff63, 114], ins: [0xff63, 114], help: [0xff6a, 114],
  home: [0xff50, 115], end: [0xff57, 119],
  pageup: [0xff55, 116], page_up: [0xff55, 116], pgup: [0xff55, 116], prior: [0xff55, 116],
  pagedown: [0xff56, 121], page_down: [0xff56, 121], pgdn: [0xff56, 121], next: [0xff56, 121],
  left: [0xff51, 123], right: [0xff53, 124], down: [0xff54, 125], up: [0xff52, 126],
  arrowleft: [0xff51, 123], arrowright: [0xff53, 124], arrowdown: [0xff54, 125], arrowup: [0xff52, 126],
  caps_lock: [0xffe5, 57], capslock: [0xffe5, 57],
};
const F_CODES = [122, 120, 99, 118, 96, 97, 98, 100, 101, 109, 103, 111, 105, 107, 113, 106, 64, 79, 80, 90];

/** Shifted characters of a US layout and the key they are on. */
const SHIFTED: Record<string, string> = {
  '~': '`', '!': '1', '@': '2', '#': '3', $: '4', '%': '5', '^': '6', '&': '7', '*': '8', '(': '9', ')': '0',
  _: '-', '+': '=', '{': '[', '}': ']', '|': '\\', ':': ';', '"': "'", '<': ',', '>': '.', '?': '/',
};

/** The keysym of one character: Latin-1 is its code point, other Unicode 0x01000000 + code point. */
export function charKeysym(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (ch === '\n') return 0xff0d;
  if (ch === '\t') return 0xff09;
  return cp <= 0xff ? cp : 0x01000000 + cp;
}

/** Shift is held for this character on a US keyboard; `base` is the unshifted key's character. */
export function shiftOf(ch: string): { shift: boolean; base: string } {
  if (ch >= 'A' && ch <= 'Z') return { shift: true, base: ch.toLowerCase() };
  const base = SHIFTED[ch];
  return base ? { shift: true, base } : { shift: false, base: ch };
}

const UNSHIFTED = Object.fromEntries(Object.entries(SHIFTED).map(([shifted, base]) => [base, shifted]));

/** The character Shift gives on this key of a US keyboard ("a" → "A", "1" → "!"), or the character itself. */
export function withShift(ch: string): string {
  if (ch >= 'a' && ch <= 'z') return ch.toUpperCase();
  return UNSHIFTED[ch] ?? ch;
}

/** Characters vm_type cannot send: control characters other than newline and tab. */
export function untypeable(text: string): string[] {
  return [...new Set([...text].filter((c) => { const cp = c.codePointAt(0)!; return (cp < 0x20 && c !== '\n' && c !== '\t' && c !== '\r') || cp === 0x7f || (cp >= 0x80 && cp < 0xa0); }))];
}

function resolve(part: string, commandKeysym: number): KeyRef | undefined {
  const lower = part.toLowerCase();
  const mod = MODIFIERS[lower];
  if (mod) return { name: part, modifier: mod, keysym: mod === 'cmd' ? commandKeysym : MODIFIER_KEYSYM[mod] };
  const named = NAMED[lower];
  if (named) return { name: part, keysym: named[0], macCode: named[1] };
  const f = /^f([1-9]|1[0-9]|20)$/.exec(lower);
  if (f) { const n = Number(f[1]); return { name: part, keysym: 0xffbe + n - 1, macCode: F_CODES[n - 1] }; }
  const chars = [...part];
  if (chars.length === 1) {
    const cp = part.codePointAt(0)!;
    if (cp <= 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0)) return undefined;
    return { name: part, keysym: charKeysym(part), char: part };
  }
  const u = /^U\+?([0-9A-Fa-f]{4,6})$/.exec(part);
  if (u) {
    const cp = Number.parseInt(u[1]!, 16);
    if (cp > 0x20 && cp <= 0x10ffff) { const ch = String.fromCodePoint(cp); return { name: part, keysym: charKeysym(ch), char: ch }; }
  }
  return undefined;
}

/** "cmd+shift+t Return" → chords of keys, in order. Throws INVALID_REQUEST naming the first bad key. */
export function parseChords(keys: string, commandKeysym: number): KeyRef[][] {
  return splitChords(keys, errors, 'cmd+shift+t').map(({ chord, parts }) => {
    return parts.map((part) => {
      const key = resolve(part, commandKeysym);
      if (!key) {
        throw macError('INVALID_REQUEST', `unknown key "${part}" in "${chord}": use names such as cmd, option, ctrl, shift, Return, Escape, Tab, backspace, delete, Home, End, Page_Up, Left, F5, or a single character, joined by "+"; separate chords with spaces`, { details: { key: part, chord } });
      }
      return key;
    });
  });
}
