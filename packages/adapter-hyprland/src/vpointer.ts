/**
 * The pointer: a minimal Wayland client (python3 stdlib, sent with the command; its Wayland
 * part is wayland-py.ts, shared with the kept keyboard) that creates a
 * zwlr_virtual_pointer_v1 device and plays a list of ops on it — absolute motion, buttons, wheel.
 * Both sway and Hyprland implement that protocol and map absolute motion over the logical
 * bounding box of all outputs (wlroots' wlr_cursor; Hyprland's CPointerManager::warpAbsolute), so
 * one path serves both and is exact under any output scale: the op carries the target as a
 * fraction of that box (x / extent), computed from the screenshot's own pixels (layout.ts).
 *
 * Why not sway's `seat - cursor press`: headless sway has no pointer device, so the seat has no
 * pointer capability and clients never bind wl_pointer — the press moves sway's focus but no
 * client sees the click (measured with foot's mouse reporting). The virtual pointer IS a device:
 * while it lives the seat has a pointer, and after input_settle_ms clients have bound it. So the
 * session keeps one device alive between actions (the holder, a detached `python3 … hold` that
 * ends with dispose() or after pointer_hold_seconds without use): with it, a new action's device
 * joins a seat that clients already listen to, and clicks need no settle (measured: 5 of 5 clicks
 * without settle landed with a holder; the first click of a session pays the settle once).
 * Why not Hyprland's `dispatch movecursor` + `sendshortcut mouse:272`: logical integers only, one
 * IPC round trip per step, and no button path that reaches clients like a device does.
 */
import type { AdapterContext, Modifier, MouseButton, Point } from '@vmhub/core';
import type { Layout } from './layout.ts';
import { toLogical } from './layout.ts';
import type { HyprRuntime } from './runtime.ts';
import { reclaimKeyboard } from './vkeyboard.ts';
import { WAYLAND_PY } from './wayland-py.ts';

export const VPOINTER_PY = WAYLAND_PY + String.raw`
w = Wayland()
w.roundtrip()
mgr = w.bind("zwlr_virtual_pointer_manager_v1", 1)
ptr = w.id()
w.send(mgr, 0, struct.pack("<II", 0, ptr))
a = sys.argv[1:]
if a[:1] == ["hold"]:
    w.roundtrip()
    alive, idle = a[1] + ".alive", int(a[2])
    while True:
        r, _, _ = select.select([w.s], [], [], 1.0)
        if r and not w.s.recv(65536): break
        try:
            if time.time() - os.path.getmtime(alive) > idle: break
        except OSError: break
    sys.exit(0)
i = 0
while i < len(a):
    op = a[i]
    if op == "move":
        x, y, wd, ht = (int(v) for v in a[i + 1:i + 5]); i += 5
        w.send(ptr, 1, struct.pack("<IIIII", ms(), x, y, wd, ht)); w.send(ptr, 4)
    elif op in ("down", "up"):
        w.send(ptr, 2, struct.pack("<III", ms(), int(a[i + 1]), 1 if op == "down" else 0)); w.send(ptr, 4); i += 2
    elif op == "wheel":
        axis, n = int(a[i + 1]), int(a[i + 2]); i += 3
        w.send(ptr, 5, struct.pack("<I", 0))
        w.send(ptr, 7, struct.pack("<IIiI", ms(), axis, int(15 * n * 256), n & 0xffffffff)); w.send(ptr, 4)
    elif op == "sleep":
        w.roundtrip()
        time.sleep(int(a[i + 1]) / 1000); i += 2
    else:
        fail(64, "bad op %s" % op)
w.roundtrip()
w.send(ptr, 8)
w.roundtrip()
`;

// $1 the client, $2/$3 wtype press/release flags ("" for none), $4 how long to hold them (ms),
// $5 the session's holder id ("" for none), $6 the settle (ms), $7 the holder's idle limit (s);
// then ops. Modifiers come from a virtual keyboard (wtype) held down while the pointer acts.
// The holder is a virtual pointer kept alive between actions (see HOLDER below): while it runs,
// the seat already has a pointer that clients have bound, and an action needs no settle.
const POINTER_SCRIPT = String.raw`
py=$1; press=$2; release=$3; modhold=$4; id=$5; settle=$6; idle=$7; shift 7
full=$settle
if [ -n "$id" ]; then
  base="$XDG_RUNTIME_DIR/vmhub-vpointer-$id"
  touch "$base.alive"
  if [ -f "$base.pid" ] && kill -0 "$(cat "$base.pid")" 2>/dev/null; then settle=0
  else setsid python3 -c "$py" hold "$base" "$idle" </dev/null >/dev/null 2>&1 & echo "$!" > "$base.pid"; fi
fi
kp=
if [ -n "$press" ]; then
  # A new virtual keyboard: its modifiers reach clients only after the full settle.
  settle=$full
  wtype $press -s "$modhold" $release & kp=$!
fi
python3 -c "$py" sleep "$settle" "$@"; rc=$?
[ -n "$kp" ] && wait "$kp"
exit $rc
`;

/**
 * End of the session: stop its pointer holder and its keyboard helper (vkeyboard.ts), best
 * effort; both also end by themselves when idle.
 */
export const HOLDER_STOP_SCRIPT = 'for k in vpointer vkbd; do b="$XDG_RUNTIME_DIR/vmhub-$k-$1"; [ -f "$b.pid" ] && kill "$(cat "$b.pid")" 2>/dev/null; rm -f "$b.pid" "$b.alive" "$b.sock"; done; exit 0';

/** Linux input button codes (BTN_LEFT, BTN_MIDDLE, BTN_RIGHT). */
export const BUTTON_CODES: Readonly<Record<MouseButton, number>> = { left: 272, middle: 274, right: 273 };
const WTYPE_MODS: Readonly<Record<Modifier, string>> = { ctrl: 'ctrl', shift: 'shift', alt: 'alt', super: 'logo' };

/** Precision of absolute motion: 1/100 logical pixel. */
const UNITS = 100;

/** The `move` op for a screen pixel (its centre), as a fraction of the layout box. */
export function moveOp(layout: Layout, p: Point): string[] {
  const l = toLogical(layout, { x: p.x + 0.5, y: p.y + 0.5 });
  const w = Math.max(1, Math.round(layout.box.width * UNITS)), h = Math.max(1, Math.round(layout.box.height * UNITS));
  const x = Math.min(w - 1, Math.max(0, Math.round((l.x - layout.box.x) * UNITS)));
  const y = Math.min(h - 1, Math.max(0, Math.round((l.y - layout.box.y) * UNITS)));
  return ['move', String(x), String(y), String(w), String(h)];
}

/** Time the ops take (their sleeps), for the modifier hold and the command timeout. */
export function opsDuration(ops: string[]): number {
  let ms = 0;
  for (let i = 0; i < ops.length; i++) if (ops[i] === 'sleep') ms += Number(ops[i + 1]);
  return ms;
}

/**
 * Play pointer ops on a fresh device, after a settle sleep unless the session's holder already
 * gives the seat a pointer (the script decides in the guest; the first action starts the holder).
 */
export async function playPointer(rt: HyprRuntime, ctx: AdapterContext, ops: string[], modifiers: Modifier[] = []): Promise<void> {
  const guest = await rt.guest(ctx);
  const o = rt.options;
  const mods = [...new Set(modifiers)].map((m) => WTYPE_MODS[m]);
  const press = mods.map((m) => `-M ${m}`).join(' '), release = mods.map((m) => `-m ${m}`).join(' ');
  // With modifiers the keyboard is new too and needs its settle whatever the pointer has.
  const modHold = o.input_settle_ms + opsDuration(ops) + 150;
  const holder = o.pointer_hold_seconds > 0 ? rt.holderId : '';
  // A command killed mid-drag takes its device away with the button down: the client sees no
  // release (measured: a release from a fresh device does not reach it either), and the next
  // click is delivered normally. Documented in docs/adapters/hyprland.md (Limits).
  await guest.sh(POINTER_SCRIPT, [VPOINTER_PY, press, release, String(modHold), holder, String(o.input_settle_ms), String(o.pointer_hold_seconds), ...ops], {
    needs: mods.length ? ['python3', 'wtype', 'setsid'] : ['python3', 'setsid'],
    label: 'virtual pointer',
    timeoutMs: Math.max(o.command_timeout_ms, modHold + 10_000),
  });
  if (holder) rt.holderStarted = true;
  if (mods.length) await reclaimKeyboard(rt, ctx);
}
