/** The keysyms the fake desktop accepts: enough to tell a valid chord from a typo. */
import { VmhubError } from '@vmhub/core';

const NAMED = [
  'Return', 'Enter', 'Tab', 'Escape', 'BackSpace', 'Delete', 'Insert', 'Home', 'End', 'Page_Up', 'Page_Down',
  'Up', 'Down', 'Left', 'Right', 'space', 'Menu', 'Print', 'minus', 'plus', 'equal', 'comma', 'period', 'slash',
  'backslash', 'semicolon', 'apostrophe', 'grave', 'bracketleft', 'bracketright',
];
const MODIFIERS = ['ctrl', 'control', 'shift', 'alt', 'super', 'meta', 'cmd'];
const KEYS = new Set([...NAMED, ...MODIFIERS, ...Array.from({ length: 24 }, (_, i) => `F${i + 1}`)].map((k) => k.toLowerCase()));

function validKey(name: string): boolean {
  return /^[A-Za-z0-9]$/.test(name) || KEYS.has(name.toLowerCase());
}

/** Split "ctrl+shift+t Return" into chords, refusing unknown key names. */
export function parseKeys(keys: string): string[][] {
  const chords = keys.trim().split(/\s+/).filter(Boolean).map((c) => c.split('+'));
  if (chords.length === 0) throw new VmhubError('INVALID_REQUEST', '[vmhub] [adapter-fake] keys is empty', { source: 'adapter-fake' });
  for (const chord of chords) {
    for (const k of chord) {
      if (!validKey(k)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [adapter-fake] unknown key "${k}" in "${keys}": use keysym names such as Return, Escape, F5, ctrl+shift+t`, { source: 'adapter-fake' });
    }
  }
  return chords;
}
