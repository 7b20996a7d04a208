/**
 * Key names every desktop adapter accepts in vm_key, the same everywhere: the friendly names of
 * keys that are not modifiers (enter, esc, pgup, arrowleft, …) and the keysym names of printable
 * ASCII punctuation, both as X keysym names (what xdotool, xkbcommon and RFB speak), and the
 * chord syntax ("ctrl+shift+t Return", "ctrl++", "U+2713"). Each adapter maps the names on to
 * what its input tool takes and says which names it knows.
 */
import type { AdapterErrors } from './errors.ts';

/** Friendly names of keys that are not modifiers, lowercased → X keysym name. */
export const KEY_NAME_ALIASES: Readonly<Record<string, string>> = {
  enter: 'Return', return: 'Return', ret: 'Return', esc: 'Escape', escape: 'Escape',
  backspace: 'BackSpace', bs: 'BackSpace', del: 'Delete', delete: 'Delete', ins: 'Insert', insert: 'Insert',
  tab: 'Tab', space: 'space', spacebar: 'space',
  pageup: 'Prior', pgup: 'Prior', page_up: 'Prior', pagedown: 'Next', pgdn: 'Next', page_down: 'Next',
  home: 'Home', end: 'End', up: 'Up', down: 'Down', left: 'Left', right: 'Right',
  arrowup: 'Up', arrowdown: 'Down', arrowleft: 'Left', arrowright: 'Right',
  capslock: 'Caps_Lock', numlock: 'Num_Lock', scrolllock: 'Scroll_Lock',
  print: 'Print', printscreen: 'Print', prtsc: 'Print', pause: 'Pause', menu: 'Menu', apps: 'Menu',
  plus: 'plus', minus: 'minus', dash: 'minus', equals: 'equal', comma: 'comma', period: 'period', dot: 'period', slash: 'slash',
  backslash: 'backslash', semicolon: 'semicolon', quote: 'apostrophe', backquote: 'grave', backtick: 'grave', tilde: 'asciitilde',
  volumeup: 'XF86AudioRaiseVolume', volumedown: 'XF86AudioLowerVolume', mute: 'XF86AudioMute',
};

/** Printable ASCII characters that are not themselves keysym names → their keysym names. */
export const PUNCTUATION_KEYSYMS: Readonly<Record<string, string>> = {
  ' ': 'space', '!': 'exclam', '"': 'quotedbl', '#': 'numbersign', '$': 'dollar', '%': 'percent', '&': 'ampersand',
  "'": 'apostrophe', '(': 'parenleft', ')': 'parenright', '*': 'asterisk', '+': 'plus', ',': 'comma', '-': 'minus',
  '.': 'period', '/': 'slash', ':': 'colon', ';': 'semicolon', '<': 'less', '=': 'equal', '>': 'greater',
  '?': 'question', '@': 'at', '[': 'bracketleft', '\\': 'backslash', ']': 'bracketright', '^': 'asciicircum',
  '_': 'underscore', '`': 'grave', '{': 'braceleft', '|': 'bar', '}': 'braceright', '~': 'asciitilde',
};

/** One chord of vm_key's `keys`: as the agent spelled it, and its key names in order. */
export interface Chord {
  chord: string;
  parts: string[];
}

/**
 * Split vm_key's `keys` into chords ("ctrl+shift+t Return" → two), each into its key names.
 * "ctrl++" is ctrl and the plus key (only a "+" followed by something splits); "U+2713" names one
 * key and comes back as "U2713". Empty `keys`: INVALID_REQUEST giving `example` (a chord in the
 * adapter's own modifier names).
 */
export function splitChords(keys: string, errors: AdapterErrors, example = 'ctrl+shift+t'): Chord[] {
  const chords = keys.trim().split(/\s+/).filter(Boolean);
  if (chords.length === 0) throw errors.error('INVALID_REQUEST', `keys is empty: give a key or chord such as "Return" or "${example}"`);
  return chords.map((chord) => {
    const folded = chord.replace(/(^|\+)U\+([0-9A-Fa-f]{4,6})(?=$|\+)/g, '$1U$2');
    return { chord, parts: folded.length === 1 ? [folded] : folded.split(/\+(?=.)/) };
  });
}
