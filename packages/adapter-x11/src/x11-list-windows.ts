/**
 * List windows: the EWMH client list (_NET_CLIENT_LIST on the root: `wmctrl -l` fails outright
 * with BadWindow when a window closes while it enumerates), then per window xwininfo (absolute
 * client-area geometry and map state: wmctrl's geometry is skewed by frame offsets) and xprop (class,
 * UTF-8 title, pid, hidden state), plus the root's _NET_ACTIVE_WINDOW — one fixed script, one
 * guest command. Geometry is the client area in screen pixels, without the WM's frame.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { pickWindow } from '@vmhub/core/adapter-kit';
import { errors, x11Error } from './errors.ts';
import type { Guest } from './guest.ts';
import type { X11Runtime } from './runtime.ts';

/**
 * Shell: `$active_id`, the window _NET_ACTIVE_WINDOW names (its first id: xfwm4 sets two, the
 * active window then 0x0); empty when the root has none. Every script that reads the active
 * window reads it so.
 */
export const ACTIVE_ID_SH = String.raw`active_id=$(xprop -root -notype _NET_ACTIVE_WINDOW 2>/dev/null | sed -n 's/^[^#]*# *\(0x[0-9a-fA-F]*\).*/\1/p')`;

export const LIST_SCRIPT = String.raw`
list=$(xprop -root -notype _NET_CLIENT_LIST 2>/dev/null)
case "$list" in
  *_NET_CLIENT_LIST*'#'*) ;;
  *) echo 'the root window has no _NET_CLIENT_LIST: no EWMH window manager (openbox) runs on this display' >&2; exit 73 ;;
esac
${ACTIVE_ID_SH}
printf '@active %s\n' "$active_id"
for id in $(printf '%s\n' "$list" | sed 's/^[^#]*#//' | tr ',' ' '); do
  printf '@window %s\n' "$id"
  xwininfo -id "$id" 2>/dev/null
  xprop -id "$id" -notype WM_CLASS _NET_WM_NAME WM_NAME _NET_WM_PID _NET_WM_STATE 2>/dev/null
done
exit 0
`;

export interface X11Window extends WindowInfo {
  pid?: number;
}

export async function listWindowsWith(guest: Guest): Promise<X11Window[]> {
  const res = await guest.sh(LIST_SCRIPT, [], { needs: ['xprop', 'xwininfo', 'sed', 'tr'], okCodes: [0, 73] });
  if (res.exit_code === 73) {
    throw x11Error('CAPABILITY_UNAVAILABLE', 'no EWMH window manager runs on the display (the root has no _NET_CLIENT_LIST): start openbox or another EWMH WM in the golden image', {
      hint: 'Windows cannot be listed on this VM; input and screenshots may still work (vm_capabilities).',
    });
  }
  return parseWindowList(res.stdout.toString('utf8'));
}

export async function listWindows(rt: X11Runtime, ctx: AdapterContext): Promise<WindowInfo[]> {
  const windows = await listWindowsWith(await rt.guest(ctx));
  return windows.map(publicWindow);
}

export function publicWindow(w: X11Window): WindowInfo {
  const { pid: _pid, ...rest } = w;
  return rest;
}

/** Canonical id form: 0x + 8 hex digits, as wmctrl prints it. */
export function formatWindowId(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

export function parseWindowId(text: string): number | undefined {
  const t = text.trim();
  if (/^0x[0-9a-f]{1,8}$/i.test(t)) return Number.parseInt(t.slice(2), 16);
  if (/^[0-9]{1,10}$/.test(t)) return Number(t);
  return undefined;
}

export function parseWindowList(text: string): X11Window[] {
  const sections = text.split(/^@window /m);
  const activeMatch = /^@active (0x[0-9a-f]+)/im.exec(sections[0] ?? '');
  const active = activeMatch ? parseWindowId(activeMatch[1]!) : undefined;
  const out: X11Window[] = [];
  for (const section of sections.slice(1)) {
    const idText = section.slice(0, section.indexOf('\n')).trim();
    const id = parseWindowId(idText);
    if (id === undefined) continue;
    const num = (re: RegExp) => { const m = re.exec(section); return m ? Number(m[1]) : undefined; };
    const x = num(/^\s*Absolute upper-left X:\s*(-?\d+)/m);
    const y = num(/^\s*Absolute upper-left Y:\s*(-?\d+)/m);
    const width = num(/^\s*Width:\s*(\d+)/m);
    const height = num(/^\s*Height:\s*(\d+)/m);
    if (x === undefined || y === undefined || width === undefined || height === undefined) continue; // vanished meanwhile
    const mapState = /^\s*Map State:\s*(\w+)/m.exec(section)?.[1] ?? '';
    const state = /^_NET_WM_STATE = (.*)$/m.exec(section)?.[1] ?? '';
    const { title, klass, pid } = windowProps(section);
    const w: X11Window = {
      id: formatWindowId(id),
      title,
      class: klass[1] ?? klass[0] ?? '',
      x, y, width, height,
      focused: active === id,
      visible: mapState === 'IsViewable' && !state.includes('_NET_WM_STATE_HIDDEN'),
    };
    if (pid !== undefined) w.pid = pid;
    out.push(w);
  }
  return out;
}

/** A window's title (UTF-8 _NET_WM_NAME, else WM_NAME), WM_CLASS strings and pid, from `xprop -notype` lines. */
export function windowProps(xprop: string): { title: string; klass: string[]; pid?: number } {
  const title = xpropStrings(/^_NET_WM_NAME = (.*)$/m.exec(xprop)?.[1])[0] ?? xpropStrings(/^WM_NAME = (.*)$/m.exec(xprop)?.[1])[0] ?? '';
  const pid = /^_NET_WM_PID = (\d+)/m.exec(xprop)?.[1];
  return { title, klass: xpropStrings(/^WM_CLASS = (.*)$/m.exec(xprop)?.[1]), ...(pid ? { pid: Number(pid) } : {}) };
}

/**
 * Parse xprop's list of quoted strings: `"xterm", "XTerm"`. xprop escapes `"` and `\` with a
 * backslash, writes newlines as \n and other bytes as \ooo octal.
 */
export function xpropStrings(value: string | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  let i = 0;
  while (i < value.length) {
    const start = value.indexOf('"', i);
    if (start < 0) break;
    const bytes: number[] = [];
    let j = start + 1;
    for (; j < value.length && value[j] !== '"'; j++) {
      const c = value[j]!;
      if (c === '\\' && j + 1 < value.length) {
        const next = value[j + 1]!;
        const oct = /^[0-7]{3}/.exec(value.slice(j + 1, j + 4));
        if (oct) { bytes.push(Number.parseInt(oct[0], 8)); j += 3; continue; }
        j++;
        if (next === 'n') bytes.push(10);
        else if (next === 't') bytes.push(9);
        else bytes.push(...Buffer.from(next, 'utf8'));
        continue;
      }
      bytes.push(...Buffer.from(c, 'utf8'));
    }
    out.push(Buffer.from(bytes).toString('utf8'));
    i = j + 1;
  }
  return out;
}

/** Find one window by id (0x… or decimal) or exact title. */
export function resolveWindow(windows: X11Window[], ref: string): X11Window {
  const id = parseWindowId(ref);
  return pickWindow(windows, ref, errors, (w) => id !== undefined && parseWindowId(w.id) === id);
}
