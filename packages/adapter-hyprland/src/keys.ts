/**
 * vm_key names → wtype arguments. wtype resolves key names with xkbcommon (keysym names, case-
 * insensitive: Return, Escape, F5, Page_Up, a, U2713 …) and refuses an unknown one before it
 * sends anything, so the adapter maps only the friendly aliases and leaves validation to it
 * (an "Unknown key" from wtype becomes INVALID_REQUEST naming the key). Modifiers go through
 * wtype's -M/-m (ctrl, shift, alt, logo, altgr); a chord of modifiers alone taps the key itself.
 *
 * The documented map (docs/adapters/hyprland.md): ctrl|control|ctl → ctrl; shift; alt|option|opt
 * → alt; super|win|windows|cmd|command|meta|logo → logo; altgr → altgr; enter|return → Return;
 * esc → Escape; backspace|bs → BackSpace; del → Delete; ins → Insert; tab; space; pageup|pgup →
 * Prior; pagedown|pgdn → Next; home; end; up/down/left/right and arrow*; capslock → Caps_Lock;
 * print|printscreen → Print; menu; punctuation characters by their keysym names (+ → plus …);
 * U+XXXX → the Unicode keysym.
 */
import { KEY_NAME_ALIASES, PUNCTUATION_KEYSYMS, splitChords } from '@vmhub/core/adapter-kit';
import { errors, hyprError } from './errors.ts';

export const MODIFIERS: Readonly<Record<string, string>> = {
  ctrl: 'ctrl', control: 'ctrl', ctl: 'ctrl', lctrl: 'ctrl', rctrl: 'ctrl',
  shift: 'shift', lshift: 'shift', rshift: 'shift',
  alt: 'alt', option: 'alt', opt: 'alt', lalt: 'alt',
  super: 'logo', win: 'logo', windows: 'logo', cmd: 'logo', command: 'logo', meta: 'logo', logo: 'logo',
  altgr: 'altgr', ralt: 'altgr',
};

/** The key a modifier alone taps. */
const MODIFIER_KEYS: Readonly<Record<string, string>> = { ctrl: 'Control_L', shift: 'Shift_L', alt: 'Alt_L', logo: 'Super_L', altgr: 'ISO_Level3_Shift' };

/** Friendly key names (the kit's: enter, esc, pgup, …) → keysym names. */
export const KEY_ALIASES: Readonly<Record<string, string>> = KEY_NAME_ALIASES;

export function resolveKey(key: string): string {
  if ([...key].length === 1) {
    if (PUNCTUATION_KEYSYMS[key]) return PUNCTUATION_KEYSYMS[key]!;
    if (/^[A-Za-z0-9]$/.test(key)) return key;
    return `U${key.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  const alias = KEY_ALIASES[key.toLowerCase()];
  if (alias) return alias;
  const unicode = /^U\+?([0-9A-Fa-f]{4,6})$/.exec(key);
  if (unicode) return `U${unicode[1]!.toUpperCase()}`;
  if (!/^[A-Za-z0-9_]+$/.test(key)) throw badKey(key, key);
  return key;
}

function badKey(part: string, chord: string) {
  return hyprError('INVALID_REQUEST', `unknown key "${part}" in "${chord}": use xkb keysym names (Return, Escape, F5, Page_Up, a, ...) or aliases (ctrl, alt, shift, super, enter, esc), joined by "+"; separate chords with spaces`, {
    details: { key: part, chord },
  });
}

/** "ctrl+shift+t Return" → wtype args: -M ctrl -M shift -k t -m shift -m ctrl -k Return. */
export function keyArgs(keys: string): string[] {
  const args: string[] = [];
  for (const { parts } of splitChords(keys, errors)) {
    const mods: string[] = [];
    const plain: string[] = [];
    for (const part of parts) {
      const mod = MODIFIERS[part.toLowerCase()];
      if (mod) { if (!mods.includes(mod)) mods.push(mod); } else plain.push(resolveKey(part));
    }
    // wtype gives every key a one-level keymap entry, so clients ignore a held shift for text
    // (measured in foot: -M shift -k b types "b", and so does -k B). shift+<letter> alone is
    // therefore typed as the capital letter itself; with other modifiers (ctrl+shift+t) the
    // chord goes as is, since apps match shortcuts on the modifier state.
    if (mods.length === 1 && mods[0] === 'shift' && plain.length === 1 && /^[A-Za-z]$/.test(plain[0]!)) {
      args.push(plain[0]!.toUpperCase());
      continue;
    }
    if (plain.length === 0) {
      // A modifier alone ("super"): tap its key, the others held.
      plain.push(MODIFIER_KEYS[mods.pop()!]!);
    }
    for (const m of mods) args.push('-M', m);
    if (plain.length === 1) args.push('-k', plain[0]!);
    else {
      for (const k of plain) args.push('-P', k);
      for (const k of [...plain].reverse()) args.push('-p', k);
    }
    for (const m of [...mods].reverse()) args.push('-m', m);
  }
  return args;
}

/** wtype's "Unknown key 'x'" / "Invalid modifier name" as the typed error the agent can fix. */
export function wtypeRefusal(stderr: string, keys: string): Error | undefined {
  const m = /Unknown key '([^']*)'|Invalid modifier name '([^']*)'/.exec(stderr);
  if (!m) return undefined;
  return badKey(m[1] ?? m[2] ?? '', keys);
}
