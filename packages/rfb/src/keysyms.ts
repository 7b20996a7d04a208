/**
 * X keysyms (X11 keysymdef.h values, the key codes RFB KeyEvent carries; RFC 6143 §7.5.4).
 * Latin-1 characters are their own keysym; any other Unicode character is 0x01000000 + its code
 * point (the X11 Unicode keysym range, which x11vnc, Xvnc and QEMU understand).
 */
import { RfbError } from './errors.ts';

const NAMED: Record<string, number> = {
  backspace: 0xff08, tab: 0xff09, linefeed: 0xff0a, clear: 0xff0b, return: 0xff0d, enter: 0xff0d,
  pause: 0xff13, scroll_lock: 0xff14, sys_req: 0xff15, escape: 0xff1b, esc: 0xff1b,
  home: 0xff50, left: 0xff51, up: 0xff52, right: 0xff53, down: 0xff54,
  page_up: 0xff55, pageup: 0xff55, prior: 0xff55, page_down: 0xff56, pagedown: 0xff56, next: 0xff56,
  end: 0xff57, begin: 0xff58, select: 0xff60, print: 0xff61, printscreen: 0xff61, execute: 0xff62,
  insert: 0xff63, ins: 0xff63, undo: 0xff65, redo: 0xff66, menu: 0xff67, find: 0xff68, cancel: 0xff69,
  help: 0xff6a, break: 0xff6b, num_lock: 0xff7f, numlock: 0xff7f,
  kp_enter: 0xff8d, kp_multiply: 0xffaa, kp_add: 0xffab, kp_separator: 0xffac, kp_subtract: 0xffad,
  kp_decimal: 0xffae, kp_divide: 0xffaf,
  shift: 0xffe1, shift_l: 0xffe1, shift_r: 0xffe2,
  ctrl: 0xffe3, control: 0xffe3, control_l: 0xffe3, control_r: 0xffe4,
  caps_lock: 0xffe5, capslock: 0xffe5, shift_lock: 0xffe6,
  meta: 0xffe7, meta_l: 0xffe7, meta_r: 0xffe8,
  alt: 0xffe9, alt_l: 0xffe9, alt_r: 0xffea, option: 0xffe9, opt: 0xffe9, altgr: 0xfe03, iso_level3_shift: 0xfe03,
  // Super is the Windows/Command key; Apple's own mapping is not verified here (see docs/vnc.md).
  super: 0xffeb, super_l: 0xffeb, super_r: 0xffec, win: 0xffeb, windows: 0xffeb, cmd: 0xffeb, command: 0xffeb,
  hyper_l: 0xffed, hyper_r: 0xffee,
  delete: 0xffff, del: 0xffff, space: 0x20,
};
for (let i = 1; i <= 35; i++) NAMED[`f${i}`] = 0xffbe + i - 1;
for (let i = 0; i <= 9; i++) NAMED[`kp_${i}`] = 0xffb0 + i;

/** The keysym a single character types. */
export function keysymForChar(ch: string): number {
  const cp = ch.codePointAt(0);
  if (cp === undefined || String.fromCodePoint(cp) !== ch) throw new RfbError('INVALID_KEY', `"${ch}" is not a single character`);
  if (ch === '\n' || ch === '\r') return NAMED.return;
  if (ch === '\t') return NAMED.tab;
  if (ch === '\b') return NAMED.backspace;
  if (ch === '\x1b') return NAMED.escape;
  if (ch === '\x7f') return NAMED.delete;
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) throw new RfbError('INVALID_KEY', `control character U+${cp.toString(16).padStart(4, '0')} has no keysym`);
  return 0x01000000 + cp;
}

/**
 * A key name (X keysym names like `Return`, `Control_L`, `F5`, common aliases like `ctrl`,
 * `enter`, `cmd`, `pageup`; case-insensitive) or a single character.
 */
export function keysymFor(nameOrChar: string): number {
  if ([...nameOrChar].length === 1) return keysymForChar(nameOrChar);
  const known = NAMED[nameOrChar.toLowerCase().replace(/-/g, '_')];
  if (known !== undefined) return known;
  const hex = /^0x([0-9a-f]{1,8})$/i.exec(nameOrChar);
  if (hex) return parseInt(hex[1], 16);
  throw new RfbError('INVALID_KEY', `unknown key "${nameOrChar}": use an X keysym name (Return, Control_L, F5, Page_Up …), an alias (ctrl, alt, shift, cmd, enter, esc …), a single character or 0x<keysym>`);
}

/** 'ctrl+alt+t' → keysyms in press order. A literal '+' is written as 'plus' or as the last part ('ctrl++'). */
export function parseCombo(combo: string): number[] {
  const trimmed = combo.trim();
  if (!trimmed) throw new RfbError('INVALID_KEY', 'empty key combination');
  const parts = trimmed.endsWith('++') ? [...trimmed.slice(0, -2).split('+'), '+'] : trimmed === '+' ? ['+'] : trimmed.split('+');
  return parts.map((p) => {
    const name = p.trim();
    if (!name) throw new RfbError('INVALID_KEY', `empty key name in "${combo}"`);
    if (name.toLowerCase() === 'plus') return 0x2b;
    // 'ctrl+T' means the T key, not Shift+t: letters in a combination are their lower-case keysym.
    return keysymFor(/^[A-Z]$/.test(name) ? name.toLowerCase() : name);
  });
}
