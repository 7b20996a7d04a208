/**
 * The second path: macOS's own tools over SSH, when the template enables them (in_guest_tools).
 * screencapture (needs Screen Recording for the SSH chain, else it captures only the wallpaper
 * and menu bar), cliclick (Homebrew; needs Accessibility) and osascript with System Events (needs
 * Accessibility; Automation for System Events). The scripts are constants: agent text reaches
 * them only as `on run argv` arguments, so nothing is ever escaped into AppleScript source. The
 * first line of each names it (`-- vmhub:<name>`), which the macos-standin's osascript reads.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { macError } from './errors.ts';
import type { KeyRef, Modifier } from './keys.ts';
import type { MacosRuntime, Size } from './runtime.ts';

const lines = (...l: string[]) => l.flatMap((s) => ['-e', s]);

const TYPE = lines(
  '-- vmhub:type',
  'on run argv',
  'tell application "System Events"',
  'repeat with t in argv',
  'set s to t as text',
  'if s is linefeed then',
  'key code 36',
  'else if s is tab then',
  'key code 48',
  'else',
  'keystroke s',
  'end if',
  'end repeat',
  'end tell',
  'end run',
);

// argv: modifiers ("cmd,shift" or "-"), kind ("code" | "char" | "mods"), value.
const KEY = lines(
  '-- vmhub:key',
  'on run argv',
  'set m to item 1 of argv',
  'set k to item 2 of argv',
  'set mods to {}',
  'if m contains "cmd" then set end of mods to command down',
  'if m contains "shift" then set end of mods to shift down',
  'if m contains "option" then set end of mods to option down',
  'if m contains "ctrl" then set end of mods to control down',
  'tell application "System Events"',
  'if k is "code" then',
  'key code ((item 3 of argv) as integer) using mods',
  'else if k is "char" then',
  'keystroke (item 3 of argv) using mods',
  'else',
  'if m contains "cmd" then key down command',
  'if m contains "shift" then key down shift',
  'if m contains "option" then key down option',
  'if m contains "ctrl" then key down control',
  'if m contains "ctrl" then key up control',
  'if m contains "option" then key up option',
  'if m contains "shift" then key up shift',
  'if m contains "cmd" then key up command',
  'end if',
  'end tell',
  'end run',
);

// One line per window: pid, app, title, x, y, width, height, front ("true" for the frontmost app's first window).
const LIST = lines(
  '-- vmhub:list-windows',
  'set out to ""',
  'tell application "System Events"',
  'set front to unix id of first application process whose frontmost is true',
  'repeat with p in (application processes whose background only is false)',
  'set i to 0',
  'repeat with w in windows of p',
  'set i to i + 1',
  'try',
  'set {x, y} to position of w',
  'set {ww, hh} to size of w',
  'set out to out & (unix id of p) & tab & i & tab & (name of p) & tab & (name of w) & tab & x & tab & y & tab & ww & tab & hh & tab & ((unix id of p is front) and i is 1) & linefeed',
  'end try',
  'end repeat',
  'end repeat',
  'end tell',
  'return out',
);

// argv: pid, window index.
const FOCUS = lines(
  '-- vmhub:focus',
  'on run argv',
  'tell application "System Events"',
  'set p to first application process whose unix id is ((item 1 of argv) as integer)',
  'set frontmost of p to true',
  'perform action "AXRaise" of window ((item 2 of argv) as integer) of p',
  'end tell',
  'end run',
);

const CLOSE = lines(
  '-- vmhub:close',
  'on run argv',
  'tell application "System Events"',
  'set p to first application process whose unix id is ((item 1 of argv) as integer)',
  'click (first button of window ((item 2 of argv) as integer) of p whose subrole is "AXCloseButton")',
  'end tell',
  'end run',
);

// JXA: CGEventCreateScrollWheelEvent2 (macOS 10.13+, not variadic, so JXA can call it); lines, positive = up/left.
const SCROLL = ['-l', 'JavaScript', ...lines(
  '// vmhub:scroll',
  'function run(argv) {',
  "ObjC.import('CoreGraphics');",
  '$.CGEventPost(0, $.CGEventCreateScrollWheelEvent2(null, 1, 2, Number(argv[0]), Number(argv[1]), 0));',
  '}',
)];

/** Points per pixel: cliclick and System Events speak points. Xvfb and non-Retina Macs: 1. */
const pt = (v: number, rt: MacosRuntime) => Math.round(v / rt.options.display_scale);

export async function captureScreen(rt: MacosRuntime, ctx: AdapterContext): Promise<{ png: Buffer } & Size> {
  const script = 'f=$(mktemp -d /tmp/vmhub-shot.XXXXXX) || exit 1; trap \'rm -rf "$f"\' EXIT; screencapture -x -t png "$f/s.png" && cat "$f/s.png"';
  const res = await rt.run(ctx, ['/bin/sh', '-c', script], { label: 'screencapture', maxOutputBytes: 256 * 1024 * 1024 });
  const png = res.stdout;
  if (png.length < 24 || png.readUInt32BE(0) !== 0x89504e47) throw macError('INTERNAL', `screencapture wrote no PNG (${png.length} bytes): ${res.stderr.toString('utf8').slice(0, 200)}`);
  const size = { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
  rt.screen = size;
  return { png, ...size };
}

const CLICK_CMD: Record<string, string[]> = { left: ['c', 'dc', 'tc'], right: ['rc', 'rc', 'rc'] };
const CLICLICK_MOD: Record<Modifier, string> = { cmd: 'cmd', shift: 'shift', option: 'alt', ctrl: 'ctrl' };

export async function cliclickClick(rt: MacosRuntime, ctx: AdapterContext, x: number, y: number, button: string, count: number, mods: Modifier[]): Promise<void> {
  const cmds = CLICK_CMD[button];
  if (!cmds) throw macError('INVALID_REQUEST', `cliclick cannot press the ${button} button: use left or right, or VNC (vnc: "screen-sharing")`);
  const at = `${pt(x, rt)},${pt(y, rt)}`;
  const seq = button === 'right' ? Array.from({ length: count }, () => `rc:${at}`) : [`${cmds[count - 1]}:${at}`];
  const m = mods.map((k) => CLICLICK_MOD[k]).join(',');
  await rt.run(ctx, ['cliclick', ...(m ? [`kd:${m}`] : []), ...seq, ...(m ? [`ku:${m}`] : [])]);
}

export async function cliclickDrag(rt: MacosRuntime, ctx: AdapterContext, from: { x: number; y: number }, to: { x: number; y: number }, button: string): Promise<void> {
  if (button !== 'left') throw macError('INVALID_REQUEST', `cliclick drags with the left button only, not ${button}: use VNC (vnc: "screen-sharing") for other buttons`);
  await rt.run(ctx, ['cliclick', `dd:${pt(from.x, rt)},${pt(from.y, rt)}`, `dm:${pt(to.x, rt)},${pt(to.y, rt)}`, `du:${pt(to.x, rt)},${pt(to.y, rt)}`]);
}

export async function osaScroll(rt: MacosRuntime, ctx: AdapterContext, x: number, y: number, direction: string, amount: number): Promise<void> {
  await rt.run(ctx, ['cliclick', `m:${pt(x, rt)},${pt(y, rt)}`]);
  const dy = direction === 'up' ? amount : direction === 'down' ? -amount : 0;
  const dx = direction === 'left' ? amount : direction === 'right' ? -amount : 0;
  await rt.run(ctx, ['osascript', ...SCROLL, String(dy), String(dx)], { label: 'osascript (scroll)' });
}

export async function osaType(rt: MacosRuntime, ctx: AdapterContext, text: string): Promise<void> {
  // Newlines and tabs as their own words (key codes), the rest in runs; \r\n counts as one newline.
  const words = text.replace(/\r\n?/g, '\n').split(/([\n\t])/).filter((w) => w.length > 0);
  for (let i = 0; i < words.length; i += 200) {
    await rt.run(ctx, ['osascript', ...TYPE, ...words.slice(i, i + 200)], { label: 'osascript (keystroke)', timeoutMs: Math.max(rt.options.command_timeout_ms, 60_000) });
  }
}

export async function osaKey(rt: MacosRuntime, ctx: AdapterContext, chord: KeyRef[]): Promise<void> {
  const mods = chord.filter((k) => k.modifier).map((k) => k.modifier!);
  const keys = chord.filter((k) => !k.modifier);
  if (keys.length > 1) throw macError('INVALID_REQUEST', `System Events presses one key per chord, "${chord.map((k) => k.name).join('+')}" has ${keys.length}: use VNC (vnc: "screen-sharing") or split the chord`);
  const modArg = mods.length ? mods.join(',') : '-';
  const key = keys[0];
  const argv = !key ? [modArg, 'mods', '-'] : key.macCode !== undefined ? [modArg, 'code', String(key.macCode)] : [modArg, 'char', key.char!];
  await rt.run(ctx, ['osascript', ...KEY, ...argv], { label: 'osascript (key)' });
}

export interface GuestWindow extends WindowInfo { pid: number; index: number }

export async function osaListWindows(rt: MacosRuntime, ctx: AdapterContext): Promise<GuestWindow[]> {
  const res = await rt.run(ctx, ['osascript', ...LIST], { label: 'osascript (list windows)' });
  const out: GuestWindow[] = [];
  for (const line of res.stdout.toString('utf8').split('\n')) {
    const f = line.split('\t');
    if (f.length < 9) continue;
    const [pid, index, app, title, x, y, w, h, front] = f;
    const s = rt.options.display_scale;
    out.push({
      id: `${pid}:${index}`, pid: Number(pid), index: Number(index), title: title!, class: app!,
      x: Math.round(Number(x) * s), y: Math.round(Number(y) * s), width: Math.round(Number(w) * s), height: Math.round(Number(h) * s),
      focused: front === 'true', visible: true,
    });
  }
  return out;
}

export async function osaFocus(rt: MacosRuntime, ctx: AdapterContext, w: GuestWindow): Promise<void> {
  await rt.run(ctx, ['osascript', ...FOCUS, String(w.pid), String(w.index)], { label: 'osascript (focus)' });
}

export async function osaClose(rt: MacosRuntime, ctx: AdapterContext, w: GuestWindow): Promise<void> {
  await rt.run(ctx, ['osascript', ...CLOSE, String(w.pid), String(w.index)], { label: 'osascript (close)' });
}
