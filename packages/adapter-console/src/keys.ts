/**
 * US keyboard layout as QEMU qcodes. Text is typed one character at a time, each mapped to a
 * qcode plus shift where the US layout needs it; anything else (accents, CJK, emoji, control
 * characters) is refused before a single key is sent, so a half-typed command never reaches the
 * guest. Key specs follow xdotool's shape: `ctrl+alt+Delete`, several chords separated by spaces.
 */
import { VmhubError } from '@vmhub/core';

const SOURCE = 'adapter-console';

export interface KeyStroke {
  /** Modifier qcodes held while `key` is pressed. */
  modifiers: string[];
  key: string;
}

const UNSHIFTED: Record<string, string> = {
  '-': 'minus', '=': 'equal', '[': 'bracket_left', ']': 'bracket_right', '\\': 'backslash',
  ';': 'semicolon', "'": 'apostrophe', '`': 'grave_accent', ',': 'comma', '.': 'dot', '/': 'slash',
  ' ': 'spc', '\t': 'tab', '\n': 'ret',
};
const SHIFTED: Record<string, string> = {
  '!': '1', '@': '2', '#': '3', '$': '4', '%': '5', '^': '6', '&': '7', '*': '8', '(': '9', ')': '0',
  '_': 'minus', '+': 'equal', '{': 'bracket_left', '}': 'bracket_right', '|': 'backslash',
  ':': 'semicolon', '"': 'apostrophe', '~': 'grave_accent', '<': 'comma', '>': 'dot', '?': 'slash',
};

/** The stroke that types `ch` on a US layout, or undefined when the layout has none. */
export function charStroke(ch: string): KeyStroke | undefined {
  if (/^[a-z0-9]$/.test(ch)) return { modifiers: [], key: ch };
  if (/^[A-Z]$/.test(ch)) return { modifiers: ['shift'], key: ch.toLowerCase() };
  if (Object.hasOwn(UNSHIFTED, ch)) return { modifiers: [], key: UNSHIFTED[ch]! };
  if (Object.hasOwn(SHIFTED, ch)) return { modifiers: ['shift'], key: SHIFTED[ch]! };
  return undefined;
}

function describe(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const u = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return cp < 0x20 || cp === 0x7f ? u : `"${ch}" (${u})`;
}

/** Strokes for a whole text, or INVALID_REQUEST naming every character the keymap lacks. */
export function textStrokes(text: string): KeyStroke[] {
  const strokes: KeyStroke[] = [];
  const bad = new Set<string>();
  const chars = Array.from(text.replace(/\r\n?/g, '\n'));
  for (const ch of chars) {
    const s = charStroke(ch);
    if (s) strokes.push(s);
    else bad.add(ch);
  }
  if (bad.size > 0) {
    const list = [...bad].slice(0, 20).map(describe).join(', ');
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] cannot type ${list}: the console keyboard is a US layout (ASCII letters, digits, symbols, space, tab, newline). Nothing was typed. Put such text in with vm_paste or vm_exec (e.g. write it to a file), where the template supports them`, { source: SOURCE, details: { unsupported: [...bad].slice(0, 20) } });
  }
  return strokes;
}

const MODIFIERS: Record<string, string> = {
  ctrl: 'ctrl', control: 'ctrl', ctrl_l: 'ctrl', control_l: 'ctrl', ctrl_r: 'ctrl_r', control_r: 'ctrl_r',
  shift: 'shift', shift_l: 'shift', shift_r: 'shift_r',
  alt: 'alt', alt_l: 'alt', alt_r: 'alt_r', altgr: 'alt_r', option: 'alt',
  super: 'meta_l', super_l: 'meta_l', super_r: 'meta_r', meta: 'meta_l', meta_l: 'meta_l', meta_r: 'meta_r',
  win: 'meta_l', windows: 'meta_l', cmd: 'meta_l', command: 'meta_l',
};

const NAMED: Record<string, string> = {
  return: 'ret', enter: 'ret', kp_enter: 'kp_enter', tab: 'tab', escape: 'esc', esc: 'esc',
  backspace: 'backspace', back_space: 'backspace', delete: 'delete', del: 'delete', insert: 'insert', ins: 'insert',
  home: 'home', end: 'end', page_up: 'pgup', pageup: 'pgup', prior: 'pgup', pgup: 'pgup',
  page_down: 'pgdn', pagedown: 'pgdn', next: 'pgdn', pgdn: 'pgdn',
  up: 'up', down: 'down', left: 'left', right: 'right',
  space: 'spc', spc: 'spc', minus: 'minus', plus: 'equal', equal: 'equal', comma: 'comma', period: 'dot', dot: 'dot',
  slash: 'slash', backslash: 'backslash', semicolon: 'semicolon', apostrophe: 'apostrophe', grave: 'grave_accent',
  bracketleft: 'bracket_left', bracketright: 'bracket_right',
  menu: 'menu', print: 'print', sysrq: 'sysrq', pause: 'pause', break: 'pause',
  caps_lock: 'caps_lock', capslock: 'caps_lock', num_lock: 'num_lock', numlock: 'num_lock', scroll_lock: 'scroll_lock',
};
for (let i = 1; i <= 12; i++) NAMED[`f${i}`] = `f${i}`;

function keyError(spec: string, why: string): VmhubError {
  return new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] key "${spec}": ${why}. Use names like Return, Tab, Escape, BackSpace, Delete, Insert, Home, End, Page_Up, Page_Down, Up, Down, Left, Right, F1-F12, space, or one ASCII character, joined with + to modifiers (ctrl, shift, alt, super): e.g. "ctrl+alt+Delete"; separate several chords with spaces. For text use vm_type`, { source: SOURCE });
}

function oneChord(chord: string): KeyStroke {
  const parts = chord === '+' ? ['+'] : chord.length > 1 && chord.endsWith('+') ? [...chord.slice(0, -2).split('+').filter((p) => p !== ''), '+'] : chord.split('+');
  if (parts.some((p) => p === '')) throw keyError(chord, 'empty key name');
  const modifiers: string[] = [];
  for (const m of parts.slice(0, -1)) {
    const q = MODIFIERS[m.toLowerCase()];
    if (!q) throw keyError(chord, `"${m}" is not a modifier`);
    if (!modifiers.includes(q)) modifiers.push(q);
  }
  const last = parts[parts.length - 1]!;
  const lower = last.toLowerCase();
  if (MODIFIERS[lower]) return { modifiers, key: MODIFIERS[lower]! };
  if (NAMED[lower]) return { modifiers, key: NAMED[lower]! };
  if (Array.from(last).length === 1) {
    const s = charStroke(last);
    if (!s) throw keyError(chord, `"${last}" has no key on a US layout`);
    // "ctrl+C" means ctrl+shift+c, exactly as typed; "ctrl+c" stays unshifted.
    return { modifiers: [...modifiers, ...s.modifiers.filter((m) => !modifiers.includes(m))], key: s.key };
  }
  throw keyError(chord, `unknown key name "${last}"`);
}

/** Parse `keys` (e.g. "ctrl+alt+Delete", "ctrl+c Return") into strokes, validating all first. */
export function parseKeys(keys: string): KeyStroke[] {
  const chords = keys.trim().split(/\s+/).filter(Boolean);
  if (chords.length === 0) throw keyError(keys, 'no key given');
  return chords.map(oneChord);
}
