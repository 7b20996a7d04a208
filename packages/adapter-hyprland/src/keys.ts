/**
 * vm_key names → keyboard ops in wtype's argument language (the kept virtual keyboard,
 * vkeyboard.ts, speaks it). Key names are X keysym names, case-insensitive (Return, Escape, F5,
 * Page_Up, a, U2713 …), resolved and validated here with the X11 adapter's keysym table (the
 * names xkbcommon knows): an unknown one is INVALID_REQUEST naming the key, before anything is
 * sent. Modifiers go through -M/-m (ctrl, shift, alt, logo, altgr); a chord of modifiers alone
 * taps the key itself.
 *
 * The documented map (docs/adapters/hyprland.md): ctrl|control|ctl → ctrl; shift; alt|option|opt
 * → alt; super|win|windows|cmd|command|meta|logo → logo; altgr → altgr; enter|return → Return;
 * esc → Escape; backspace|bs → BackSpace; del → Delete; ins → Insert; tab; space; pageup|pgup →
 * Prior; pagedown|pgdn → Next; home; end; up/down/left/right and arrow*; capslock → Caps_Lock;
 * print|printscreen → Print; menu; punctuation characters by their keysym names (+ → plus …);
 * U+XXXX → the Unicode keysym.
 */
import { KEY_NAME_ALIASES, resolveKeysym, splitChords } from '@vmhub/core/adapter-kit';
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

/** One key name → its X keysym name (the kit's resolveKeysym: names, aliases, punctuation, U+XXXX); INVALID_REQUEST when it is none. */
export function resolveKey(key: string): string {
  const name = resolveKeysym(key);
  if (!name) throw badKey(key, key);
  return name;
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
