/**
 * The AT-SPI walk desktop adapters share (adapter-x11, adapter-hyprland): a small Python helper
 * (python3-pyatspi) sent on stdin walks depth first from the focused window (the window manager's
 * active window when the adapter names it — its process and title — else the top-level window
 * AT-SPI marks active that is on the screen; the whole desktop when asked, or when none is
 * found) and stops at the
 * node budget or the time budget (counted from the helper's start, its imports included),
 * whichever comes first, printing one JSON line per element as it goes and a last line naming why
 * it stopped. An element placed off the screen and not showing (a closed menu's items) is listed
 * without bounds, and its subtree is not walked. Every AT-SPI call is bounded too (Atspi.set_timeout), so one
 * application that does not answer costs at most that, not the 25 s D-Bus default; the search for
 * the window manager's active window ends SEARCH_GRACE_MS past the budget, before the kill: a huge
 * document (a 10 000-row page) ends the walk with what was read and `truncated: "nodes"` or
 * `"time"`, never a hang. The lines are assembled into the tree here (core's InspectRequest /
 * InspectResult).
 */
import { VmhubError } from '../errors.ts';
import type { InspectRequest, InspectResult } from '../adapter.ts';
import type { ElementNode } from '../shapes.ts';
import type { Guest } from './guest.ts';

/** Most characters of an element's own text that are read. */
const TEXT_CHARS = 200;
/** Past the time budget, the helper process is given this long before it is killed. */
const KILL_GRACE_MS = 1500;
/**
 * How long past the time budget the search for the window manager's active window may go on (it
 * is not cut by the budget: a busy application can take a second to answer): inside the kill's
 * grace, leaving the rest for the desktop's root and a slow start of the helper.
 */
const SEARCH_GRACE_MS = KILL_GRACE_MS - 500;

const ATSPI_WALK = String.raw`
import time
started = time.monotonic()
import json, sys
import pyatspi
try:
    from gi.repository import Atspi
except Exception:
    Atspi = None
max_depth, max_nodes, budget_ms, scope, text_chars = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
hint = json.loads(sys.argv[6]) if len(sys.argv) > 6 else None
deadline = started + budget_ms / 1000.0
search_s = float(sys.argv[7]) if len(sys.argv) > 7 else 0.0
def call_timeout(ms):
    if Atspi is not None:
        try: Atspi.set_timeout(ms, -1)
        except Exception: pass
call_timeout(max(200, min(1000, budget_ms)))
out = sys.stdout
state = {"count": 0, "reason": None, "deep": False}
def emit(rec):
    out.write(json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n")
    if state["count"] % 50 == 0: out.flush()
def over():
    if state["count"] >= max_nodes: state["reason"] = "nodes"
    elif time.monotonic() > deadline: state["reason"] = "time"
    return state["reason"] is not None
def walk(acc, parent, depth):
    # The root is always read: a walk whose budget is spent already still names what it walked.
    if state["reason"] or (depth > 0 and over()): return
    i = state["count"]; state["count"] += 1
    rec = {"i": i, "p": parent}
    try: rec["role"] = acc.getRoleName() or "unknown"
    except Exception: rec["role"] = "unknown"
    try:
        if acc.name: rec["name"] = acc.name
    except Exception: pass
    try:
        rec["states"] = sorted(pyatspi.stateToString(s) if hasattr(pyatspi, "stateToString") else str(s).lower().replace("state_", "") for s in acc.getState().getStates())
    except Exception: pass
    off = False
    try:
        e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        off = e.x <= -100000 or e.y <= -100000
        if e.width > 1 and e.height > 1 and not off: rec.update(x=e.x, y=e.y, width=e.width, height=e.height)
    except Exception: pass
    # Placed off the screen and not showing (a closed menu's items sit at INT_MIN): its subtree is
    # not walked — it would spend the budget on what cannot be clicked. Elements with no bounds at
    # all are walked: Firefox gives none, and no "showing", to visible parts of its own pages.
    hidden = depth > 0 and off and "showing" not in rec.get("states", ["showing"])
    if "name" not in rec:
        try:
            t = acc.queryText()
            n = t.characterCount
            # U+FFFC stands for an embedded child (the children carry their own text).
            if n > 0: text = t.getText(0, min(n, text_chars)).replace("\ufffc", "").strip()
            if n > 0 and text: rec["text"] = text
        except Exception: pass
    emit(rec)
    if hidden: return
    try: count = acc.childCount
    except Exception: count = 0
    if depth >= max_depth:
        if count > 0: state["deep"] = True
        return
    for k in range(count):
        if state["reason"] or over(): return
        try: child = acc.getChildAtIndex(k)
        except Exception: continue
        if child is not None: walk(child, i, depth + 1)
def on_screen(w):
    try:
        e = w.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        return e.width >= 32 and e.height >= 32 and e.x + e.width > 0 and e.y + e.height > 0
    except Exception:
        return False
desktop = pyatspi.Registry.getDesktop(0)
root, answered = None, "desktop"
def pid_of(app):
    try: return app.get_process_id()
    except Exception: return None
# The search for the window manager's active window is not cut by the walk's deadline (a busy
# application can take seconds to answer a new client — Firefox with a 10 000-row page under load
# — and the imports alone may spend a small budget) but by its own, search_s past it (inside the
# helper's grace before its kill). Each call is given all that is left of that, so an application
# that does not answer at all (stopped, hung) costs at most that and the walk still answers: the
# desktop.
search_end = deadline + search_s
class SearchSpent(Exception): pass
def searching():
    left = int((search_end - time.monotonic()) * 1000)
    if left < 100: raise SearchSpent()
    call_timeout(left)
def titled(app):
    try:
        searching()
        for w in app:
            searching()
            if w is not None and w.name == hint["title"] and on_screen(w): return w
    except SearchSpent: raise
    except Exception: pass
    return None
def hinted(app):
    # The window manager's active window, among the top-level windows of its process: the one of
    # its title, else the one AT-SPI marks active, else the process's only one on the screen.
    w = titled(app)
    if w is not None: return w
    shown = []
    try:
        searching()
        for w in app:
            searching()
            if w is not None and on_screen(w): shown.append(w)
    except SearchSpent: raise
    except Exception: pass
    for w in shown:
        try:
            searching()
            if w.getState().contains(pyatspi.STATE_ACTIVE): return w
        except SearchSpent: raise
        except Exception: pass
    return shown[0] if len(shown) == 1 else None
if scope == "window" and hint:
    try:
        for app in desktop:
            if app is None or root is not None: continue
            if hint.get("pid"):
                if pid_of(app) == hint["pid"]: root = hinted(app)
            else: root = titled(app)
    except SearchSpent: pass
    call_timeout(max(200, min(1000, budget_ms)))
if scope == "window" and root is None:
    # The active top-level window that is really on the screen (a window manager may keep an
    # active helper window off-screen, as xfwm4 does); none: the desktop, said in the scope.
    for app in desktop:
        if app is None or root is not None or time.monotonic() > deadline: continue
        try:
            for w in app:
                if w is not None and w.getState().contains(pyatspi.STATE_ACTIVE) and on_screen(w): root = w; break
        except Exception: pass
if root is not None: answered = "window"
emit({"scope": answered})
walk(root if root is not None else desktop, -1, 0)
emit({"end": state["reason"] or ("depth" if state["deep"] else None)})
out.flush()
`;

interface Line {
  i?: number;
  p?: number;
  scope?: 'window' | 'desktop';
  end?: InspectResult['truncated'] | null;
}

/** The helper's lines as a tree; a walk cut off mid-way (no `end` line) is truncated by time. */
export function assembleWalk(stdout: string): InspectResult {
  let scope: 'window' | 'desktop' = 'desktop';
  let truncated: InspectResult['truncated'] = 'time';
  const nodes: ElementNode[] = [];
  for (const raw of stdout.split('\n')) {
    if (!raw) continue;
    let line: Line & ElementNode;
    try { line = JSON.parse(raw) as Line & ElementNode; } catch { break; } // the last line, cut by a kill
    if (line.scope) { scope = line.scope; continue; }
    if ('end' in line) { truncated = line.end ?? undefined; continue; }
    const { i, p, ...element } = line;
    if (i === undefined || i !== nodes.length) break;
    nodes.push(element);
    if (p !== undefined && p >= 0) {
      const parent = nodes[p];
      if (parent) (parent.children ??= []).push(element);
    }
  }
  const tree = nodes[0] ?? { role: 'desktop' };
  return { source: 'at-spi', tree, scope, ...(truncated ? { truncated } : {}) };
}

/**
 * The window manager's (or compositor's) active window, as the adapter reads it: the walk of
 * scope `window` starts at the AT-SPI window of this process (`pid`, when known) with this
 * title. Without it, or when it matches no AT-SPI window, the walk looks for the window AT-SPI
 * marks active — which a toolkit may not have set yet, or may keep on a window off the screen.
 */
export interface ActiveWindowHint {
  pid?: number;
  title: string;
}

/**
 * Walk the guest's accessibility tree as `input` bounds it, through the adapter's guest runner
 * (its errors: a missing python3 or bus is the adapter's to explain). `active`: the window
 * manager's active window, for scope `window`.
 */
export async function walkAtspi(guest: Guest, input: InspectRequest, active?: ActiveWindowHint): Promise<InspectResult> {
  const argv = ['python3', '-', String(input.max_depth), String(input.max_nodes), String(input.timeout_ms), input.scope, String(TEXT_CHARS)];
  if (input.scope === 'window' && active?.title) argv.push(JSON.stringify({ title: active.title, ...(active.pid ? { pid: active.pid } : {}) }), String(SEARCH_GRACE_MS / 1000));
  // Killed past its grace (a loaded guest: Python and pyatspi's import alone took it), the walk
  // still answers with what it streamed, cut by time — as its own deadline would have.
  const res = await guest.run(argv, { stdin: ATSPI_WALK, timeoutMs: input.timeout_ms + KILL_GRACE_MS, maxOutputBytes: 16 * 1024 * 1024, label: 'AT-SPI walk', partialOnTimeout: true });
  const stdout = res.stdout.toString('utf8');
  // (assembleWalk reads a cut stream as cut by time; an empty one as an empty desktop.)
  if (!res.timed_out && !stdout.startsWith('{')) throw new VmhubError('INTERNAL', `the AT-SPI walk printed no element: ${stdout.slice(0, 200)}`);
  return assembleWalk(stdout);
}
