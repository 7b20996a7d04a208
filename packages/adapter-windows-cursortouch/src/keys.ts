/**
 * vm_key's chords ("ctrl+shift+t Return F5": space-separated, keys joined by "+", X keysym or
 * plain names) in Windows-MCP's Shortcut vocabulary ("ctrl+shift+t", "enter", "f5"). A name
 * outside the vocabulary is refused before anything is sent, naming it.
 */
import { winError } from './errors.ts';

const NAMED: Record<string, string> = {
  return: 'enter', enter: 'enter', kp_enter: 'enter',
  escape: 'esc', esc: 'esc', tab: 'tab', iso_left_tab: 'tab', space: 'space',
  backspace: 'backspace', delete: 'delete', del: 'delete', insert: 'insert', ins: 'insert',
  home: 'home', end: 'end',
  page_up: 'pageup', pageup: 'pageup', prior: 'pageup', pgup: 'pageup',
  page_down: 'pagedown', pagedown: 'pagedown', next: 'pagedown', pgdn: 'pagedown',
  up: 'up', down: 'down', left: 'left', right: 'right',
  ctrl: 'ctrl', control: 'ctrl', control_l: 'ctrl', control_r: 'ctrl',
  shift: 'shift', shift_l: 'shift', shift_r: 'shift',
  alt: 'alt', alt_l: 'alt', alt_r: 'alt', meta: 'alt', meta_l: 'alt', option: 'alt',
  super: 'win', super_l: 'win', super_r: 'win', win: 'win', windows: 'win', cmd: 'win', command: 'win',
  menu: 'apps', apps: 'apps', print: 'printscreen', printscreen: 'printscreen', prtsc: 'printscreen',
  caps_lock: 'capslock', capslock: 'capslock', num_lock: 'numlock', numlock: 'numlock',
  scroll_lock: 'scrolllock', scrolllock: 'scrolllock', pause: 'pause', break: 'pause',
  plus: '+', minus: '-', comma: ',', period: '.', slash: '/', backslash: '\\', semicolon: ';',
  apostrophe: "'", grave: '`', bracketleft: '[', bracketright: ']', equal: '=',
  volumeup: 'volumeup', volumedown: 'volumedown', volumemute: 'volumemute',
};

function keyName(raw: string): string {
  const lower = raw.toLowerCase();
  if (NAMED[lower]) return NAMED[lower]!;
  if (/^f([1-9]|1\d|2[0-4])$/.test(lower)) return lower;
  if (/^[a-z0-9]$/.test(lower)) return lower;
  if (raw.length === 1 && /[`~!@#$%^&*()\-_=+[\]{}\\|;:'",.<>/?]/.test(raw)) return raw;
  throw winError('INVALID_REQUEST', `unknown key "${raw}" in vm_key: use names such as ctrl, shift, alt, super, Return, Escape, Tab, BackSpace, Delete, Home, End, Page_Up, Up, F1–F24, or a single letter/digit`, { details: { key: raw } });
}

/** Each chord as its list of Windows-MCP key names, e.g. [["ctrl","shift","t"], ["enter"]]. */
export function parseChords(keys: string): string[][] {
  const chords = keys.trim().split(/\s+/).filter((c) => c.length > 0);
  if (chords.length === 0) throw winError('INVALID_REQUEST', 'vm_key got no keys');
  return chords.map((chord) => {
    // "ctrl++" is ctrl and the plus key: split on "+" that is not the last character.
    const parts = chord === '+' ? ['+'] : chord.replace(/\+\+$/, '+plus').split('+').filter((p) => p.length > 0);
    return parts.map(keyName);
  });
}
