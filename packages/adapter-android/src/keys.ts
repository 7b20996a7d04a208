/**
 * Key names → Android KEYCODE_* names (android.view.KeyEvent), for `input keyevent` and
 * `input keycombination`. Names are matched case-insensitively with `_`, `-` and spaces ignored
 * ("Page_Up" = "pageup"); a `KEYCODE_*` name from this table is accepted as is. Chords join keys
 * with "+", several chords are space-separated ("ctrl+a Delete").
 *
 * "home" is Android's Home button (KEYCODE_HOME); the text-cursor keys are "move_home" /
 * "move_end" ("end" too). "backspace" is KEYCODE_DEL (Android's name for backspace), "delete" is
 * KEYCODE_FORWARD_DEL.
 */
import { androidError } from './errors.ts';

const NAMED: Record<string, string> = {
  home: 'HOME', back: 'BACK', enter: 'ENTER', return: 'ENTER', kpenter: 'NUMPAD_ENTER',
  appswitch: 'APP_SWITCH', recents: 'APP_SWITCH', recentapps: 'APP_SWITCH', overview: 'APP_SWITCH',
  tab: 'TAB', escape: 'ESCAPE', esc: 'ESCAPE', backspace: 'DEL', delete: 'FORWARD_DEL', del: 'FORWARD_DEL', forwarddelete: 'FORWARD_DEL',
  up: 'DPAD_UP', down: 'DPAD_DOWN', left: 'DPAD_LEFT', right: 'DPAD_RIGHT',
  arrowup: 'DPAD_UP', arrowdown: 'DPAD_DOWN', arrowleft: 'DPAD_LEFT', arrowright: 'DPAD_RIGHT',
  dpadup: 'DPAD_UP', dpaddown: 'DPAD_DOWN', dpadleft: 'DPAD_LEFT', dpadright: 'DPAD_RIGHT', dpadcenter: 'DPAD_CENTER', center: 'DPAD_CENTER',
  volumeup: 'VOLUME_UP', volumedown: 'VOLUME_DOWN', volumemute: 'VOLUME_MUTE', mute: 'VOLUME_MUTE',
  power: 'POWER', wakeup: 'WAKEUP', sleep: 'SLEEP', menu: 'MENU', search: 'SEARCH', camera: 'CAMERA',
  notification: 'NOTIFICATION', notifications: 'NOTIFICATION', settings: 'SETTINGS', assist: 'ASSIST',
  space: 'SPACE', pageup: 'PAGE_UP', pagedown: 'PAGE_DOWN', movehome: 'MOVE_HOME', moveend: 'MOVE_END', end: 'MOVE_END',
  insert: 'INSERT', capslock: 'CAPS_LOCK', numlock: 'NUM_LOCK', scrolllock: 'SCROLL_LOCK', print: 'SYSRQ', sysrq: 'SYSRQ', break: 'BREAK',
  copy: 'COPY', cut: 'CUT', paste: 'PASTE', call: 'CALL', endcall: 'ENDCALL',
  mediaplaypause: 'MEDIA_PLAY_PAUSE', playpause: 'MEDIA_PLAY_PAUSE', mediaplay: 'MEDIA_PLAY', mediapause: 'MEDIA_PAUSE', mediastop: 'MEDIA_STOP',
  medianext: 'MEDIA_NEXT', mediaprevious: 'MEDIA_PREVIOUS', brightnessup: 'BRIGHTNESS_UP', brightnessdown: 'BRIGHTNESS_DOWN',
  ctrl: 'CTRL_LEFT', control: 'CTRL_LEFT', ctrlleft: 'CTRL_LEFT', ctrlright: 'CTRL_RIGHT',
  shift: 'SHIFT_LEFT', shiftleft: 'SHIFT_LEFT', shiftright: 'SHIFT_RIGHT',
  alt: 'ALT_LEFT', altleft: 'ALT_LEFT', altright: 'ALT_RIGHT',
  meta: 'META_LEFT', super: 'META_LEFT', win: 'META_LEFT', cmd: 'META_LEFT', metaleft: 'META_LEFT', metaright: 'META_RIGHT',
  comma: 'COMMA', period: 'PERIOD', minus: 'MINUS', equals: 'EQUALS', plus: 'PLUS', slash: 'SLASH', backslash: 'BACKSLASH',
  semicolon: 'SEMICOLON', apostrophe: 'APOSTROPHE', grave: 'GRAVE', leftbracket: 'LEFT_BRACKET', rightbracket: 'RIGHT_BRACKET',
  at: 'AT', pound: 'POUND', star: 'STAR',
};
const CHARS: Record<string, string> = {
  ',': 'COMMA', '.': 'PERIOD', '-': 'MINUS', '=': 'EQUALS', '/': 'SLASH', '\\': 'BACKSLASH', ';': 'SEMICOLON',
  "'": 'APOSTROPHE', '`': 'GRAVE', '[': 'LEFT_BRACKET', ']': 'RIGHT_BRACKET', '@': 'AT', '#': 'POUND', '*': 'STAR',
};
for (const c of 'abcdefghijklmnopqrstuvwxyz') NAMED[c] = c.toUpperCase();
for (let d = 0; d <= 9; d++) NAMED[String(d)] = String(d);
for (let f = 1; f <= 12; f++) NAMED[`f${f}`] = `F${f}`;

const KEYCODES = new Set([...Object.values(NAMED), ...Object.values(CHARS)].map((k) => `KEYCODE_${k}`));

/** Names a client may use, for the error that lists them. */
export const KEY_NAMES: readonly string[] = [...Object.keys(NAMED).filter((k) => k.length > 1 && !/^[0-9]$/.test(k)), 'a–z', '0–9', ...Object.keys(CHARS)];

export function resolveKey(name: string): string {
  if (/^KEYCODE_[A-Z0-9_]+$/.test(name) && KEYCODES.has(name)) return name;
  const hit = CHARS[name] ?? NAMED[name.toLowerCase().replace(/[\s_-]/g, '')];
  if (hit) return `KEYCODE_${hit}`;
  throw androidError('INVALID_REQUEST', `unknown key name ${JSON.stringify(name)}; valid names (case-insensitive, "_" ignored): ${KEY_NAMES.join(', ')}, or KEYCODE_* of these`, { details: { key: name } });
}

/** One step: a single key (→ keyevent) or a chord of several pressed together (→ keycombination). */
export type KeyStep = string[];

export function parseKeys(keys: string): KeyStep[] {
  const chords = keys.trim().split(/\s+/).filter(Boolean);
  if (chords.length === 0) throw androidError('INVALID_REQUEST', 'no key given: name keys like "home", "back", "ctrl+a"');
  return chords.map((chord) => {
    // "+" alone, or a trailing "+", means the plus key.
    const parts = chord === '+' ? ['plus'] : chord.endsWith('++') ? [...chord.slice(0, -2).split('+'), 'plus'] : chord.split('+');
    if (parts.some((p) => p === '')) throw androidError('INVALID_REQUEST', `malformed chord ${JSON.stringify(chord)}: join keys with "+", e.g. "ctrl+a"`);
    return parts.map(resolveKey);
  });
}
