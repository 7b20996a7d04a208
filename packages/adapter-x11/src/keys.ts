/**
 * Key-chord validation for vm_key: every key is checked against the kit's keysym table (plus
 * friendly aliases; @vmhub/core/adapter-kit keysyms.ts) BEFORE anything runs, because xdotool
 * ignores unknown names and would report success for a typo.
 */
import type { Modifier } from '@vmhub/core';
import { KEYSYM_ALIASES, keysymValue, resolveKeysym, splitChords, unicodeKeysym } from '@vmhub/core/adapter-kit';
import { errors, x11Error } from './errors.ts';

/** What agents and other tools call keys, mapped to X keysym names (the kit's list). */
export const KEY_ALIASES: Readonly<Record<string, string>> = KEYSYM_ALIASES;

/** Resolve one key name to an X keysym name, or undefined when it is not a key (the kit's). */
export const resolveKey: (key: string) => string | undefined = resolveKeysym;

/**
 * The value of a keysym name that resolveKey returned: a table name, or Xlib's "U<hex>" (see
 * unicodeKeysym).
 */
export function keysymOf(name: string): number {
  const value = keysymValue(name);
  if (value === undefined) throw x11Error('INVALID_REQUEST', `"${name}" is not a keysym name`);
  return value;
}

/** The keysym names of the click modifiers (what xdotool is given; the XTEST path presses their values). */
export const MODIFIER_KEYSYMS: Readonly<Record<Modifier, string>> = { ctrl: 'Control_L', shift: 'Shift_L', alt: 'Alt_L', super: 'Super_L' };

export { unicodeKeysym };

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
  // "ctrl++" is ctrl and the plus key; "U+2713" names one key (the kit's chord syntax).
  return splitChords(keys, errors).map(({ chord, parts }) => parts.map((part) => {
    const sym = resolveKey(part);
    if (!sym) {
      throw x11Error('INVALID_REQUEST', `unknown key "${part}" in "${chord}": use X keysym names (Return, Escape, F5, Page_Up, a, ...) or aliases (ctrl, alt, shift, super, enter, esc), joined by "+"; separate chords with spaces`, {
        details: { key: part, chord },
      });
    }
    return sym;
  }).join('+'));
}
