#!/usr/bin/env python3
"""vmhub's Hyprland IPC stand-in (Python 3 stdlib only).

Hyprland cannot start without a GPU/DRM device, so vmhub verifies its Hyprland code path against
this program: it listens on $XDG_RUNTIME_DIR/hypr/<signature>/.socket.sock (and .socket2.sock for
events), writes hyprland.lock (line 1 pid, line 2 WAYLAND_DISPLAY) and answers Hyprland's request
protocol: one request per connection, "[flags]/command args" (j = JSON, a = all, r = reload),
the reply, then close; the request is read in 1023-byte reads until one comes back short, as
Hyprland's socket loop does (so a request of exactly 1023·n bytes waits for more, there too).

Replies have the JSON shapes of the real releases, recorded from hyprwm/Hyprland's source:
  --version 0.41.2 (hyprlang dispatchers): tag v0.41.2, src/debug/HyprCtl.cpp
      (getWindowData, monitorsRequest, versionRequest, dispatchRequest, CHyprCtl::getReply);
  --version 0.55.x (Lua dispatchers): tag v0.55.4, src/debug/HyprCtl.cpp (getWindowData,
      getMonitorData, dispatchRequest/evalRequest), src/helpers/SystemInfo.cpp (getVersion),
      src/config/lua/bindings/LuaBindingsDispatchers.cpp (hl.dsp.* names and arguments).
Everything is backed by the live sway session beside it (swaymsg): clients are sway's views,
monitors sway's outputs, and focus/close/exec/movecursor really happen there.

Usage: hyprland-ipc-standin [--version 0.41.2|0.55.4] [--signature SIG] [--runtime-dir DIR] [--config lua|hyprlang]
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading

ADDRESS_BASE = 0x55D0C0DE0000
ADDRESS_STEP = 0x1D0
# Programs started by exec dispatchers, polled so that none stays a zombie.
STARTED = []


def swaymsg(*args):
    out = subprocess.run(["swaymsg", "-r", *args], capture_output=True, timeout=10)
    try:
        return json.loads(out.stdout or b"null")
    except ValueError:
        return None


def sway_command(cmd):
    res = swaymsg("--", cmd)
    return isinstance(res, list) and len(res) > 0 and all(r.get("success") for r in res)


def address_of(con_id):
    return ADDRESS_BASE + con_id * ADDRESS_STEP


def con_of(address):
    n = int(address, 16) - ADDRESS_BASE
    return n // ADDRESS_STEP if n >= 0 and n % ADDRESS_STEP == 0 else None


# ---- the sway session as Hyprland would describe it ------------------------------------------

def views():
    """(view, workspace, monitor index) for every sway view, in tree order."""
    tree = swaymsg("-t", "get_tree") or {}
    outs = [o for o in tree.get("nodes", []) if o.get("name") != "__i3"]
    found = []

    def walk(node, ws, mon):
        if node.get("type") == "workspace":
            ws = node
        kids = node.get("nodes", []) + node.get("floating_nodes", [])
        if node.get("type") in ("con", "floating_con") and not node.get("nodes") and ("app_id" in node or "window_properties" in node):
            found.append((node, ws, mon))
        for k in kids:
            walk(k, ws, mon)

    for i, o in enumerate(outs):
        walk(o, None, i)
    return found


def ws_id(ws):
    if ws is None:
        return -1
    num = ws.get("num", -1)
    return num if isinstance(num, int) and num > 0 else 1000 + ws.get("id", 0)


def client(view, ws, mon, history, v055):
    r, wr = view["rect"], view.get("window_rect") or {"x": 0, "y": 0, "width": view["rect"]["width"], "height": view["rect"]["height"]}
    app = view.get("app_id") or (view.get("window_properties") or {}).get("class") or ""
    title = view.get("name") or ""
    d = {
        "address": "0x%x" % address_of(view["id"]),
        "mapped": True,
        "hidden": False,
    }
    if v055:
        d["visible"] = view.get("visible", True)
        d["acceptsInput"] = True
    d["at"] = [r["x"] + wr["x"], r["y"] + wr["y"]]
    d["size"] = [wr["width"], wr["height"]]
    d["workspace"] = {"id": ws_id(ws), "name": (ws or {}).get("name", "")}
    d["floating"] = view.get("type") == "floating_con"
    if not v055:
        d["pseudo"] = False
    d["monitor"] = mon
    d["class"] = app
    d["title"] = title
    d["initialClass"] = app
    d["initialTitle"] = title
    d["pid"] = view.get("pid", -1)
    d["xwayland"] = view.get("shell") == "xwayland"
    d["pinned"] = False
    full = view.get("fullscreen_mode", 0)
    if v055:
        d["fullscreen"] = 2 if full else 0
        d["fullscreenClient"] = 2 if full else 0
        d["overFullscreen"] = False
    else:
        d["fullscreen"] = bool(full)
        d["fullscreenMode"] = 1 if full else 0
        d["fakeFullscreen"] = False
    d["grouped"] = []
    d["tags"] = []
    d["swallowing"] = "0x0"
    d["focusHistoryID"] = history.get(view["id"], -1)
    if v055:
        d["inhibitingIdle"] = False
        d["xdgTag"] = ""
        d["xdgDescription"] = ""
        d["contentType"] = "none"
        d["stableId"] = "%x" % view["id"]
    return d


def clients(v055):
    vs = views()
    # sway keeps no focus history: the focused view is 0, the rest follow in tree order.
    order = sorted(vs, key=lambda t: 0 if t[0].get("focused") else 1)
    history = {t[0]["id"]: i for i, t in enumerate(order)}
    return [client(v, ws, mon, history, v055) for v, ws, mon in vs]


TRANSFORMS = {"normal": 0, "90": 1, "180": 2, "270": 3, "flipped": 4, "flipped-90": 5, "flipped-180": 6, "flipped-270": 7}


def monitors(v055):
    outs = [o for o in (swaymsg("-t", "get_outputs") or []) if o.get("active", True)]
    wss = {w.get("name"): w for w in (swaymsg("-t", "get_workspaces") or [])}
    result = []
    for i, o in enumerate(outs):
        mode = o.get("current_mode") or {"width": o["rect"]["width"], "height": o["rect"]["height"], "refresh": 60000}
        ws = wss.get(o.get("current_workspace"))
        modes = ["%dx%d@%.2fHz" % (m["width"], m["height"], m["refresh"] / 1000.0) for m in o.get("modes", [])] or ["%dx%d@%.2fHz" % (mode["width"], mode["height"], mode["refresh"] / 1000.0)]
        m = {
            "id": i,
            "name": o["name"],
            "description": "%s %s %s" % (o.get("make", ""), o.get("model", ""), o.get("serial", "")),
            "make": o.get("make", ""),
            "model": o.get("model", ""),
            "serial": o.get("serial", ""),
            "width": mode["width"],
            "height": mode["height"],
        }
        if v055:
            m["physicalWidth"] = 0
            m["physicalHeight"] = 0
        m["refreshRate"] = round(mode["refresh"] / 1000.0, 5)
        m["x"] = o["rect"]["x"]
        m["y"] = o["rect"]["y"]
        m["activeWorkspace"] = {"id": ws_id(ws), "name": (ws or {}).get("name", "")}
        m["specialWorkspace"] = {"id": 0, "name": ""}
        m["reserved"] = [0, 0, 0, 0]
        m["scale"] = round(float(o.get("scale", 1.0)), 2)
        m["transform"] = TRANSFORMS.get(o.get("transform", "normal"), 0)
        m["focused"] = bool(o.get("focused"))
        m["dpmsStatus"] = o.get("dpms", o.get("power", True)) is not False
        m["vrr"] = False
        if v055:
            m["solitary"] = "0"
            m["solitaryBlockedBy"] = ["CANDIDATE"]
            m["activelyTearing"] = False
            m["tearingBlockedBy"] = ["NOT_TORN"]
            m["directScanoutTo"] = "0"
            m["directScanoutBlockedBy"] = ["USER"]
        else:
            m["activelyTearing"] = False
        m["disabled"] = False
        m["currentFormat"] = "XRGB8888"
        if v055:
            m["mirrorOf"] = "none"
        m["availableModes"] = modes
        if v055:
            m["colorManagementPreset"] = "srgb"
            m["sdrBrightness"] = 1.0
            m["sdrSaturation"] = 1.0
            m["sdrMinLuminance"] = 0.2
            m["sdrMaxLuminance"] = 80
            m["hardwareCursorsInUse"] = False
        result.append(m)
    return result


def version(ver, v055):
    tag = "v" + ver
    d = {"branch": "", "commit": "0" * 40}
    if v055:
        d["version"] = ver
    d.update({"dirty": False, "commit_message": "vmhub IPC stand-in (sway-backed), not Hyprland", "commit_date": "", "tag": tag, "commits": "0"})
    if v055:
        for k in ("buildAquamarine", "buildHyprlang", "buildHyprutils", "buildHyprcursor", "buildHyprgraphics",
                  "systemAquamarine", "systemHyprlang", "systemHyprutils", "systemHyprcursor", "systemHyprgraphics"):
            d[k] = "0.0.0"
        d["abiHash"] = "0" * 40
    d["flags"] = []
    return d


# ---- dispatchers --------------------------------------------------------------------------

def find_window(selector):
    """Hyprland's window selector: address:, pid:, class:, title:, activewindow (a subset)."""
    vs = [v for v, _ws, _m in views()]
    if selector in ("activewindow", ""):
        return next((v for v in vs if v.get("focused")), None)
    kind, _, value = selector.partition(":")
    if kind == "address":
        con = con_of(value) if re.fullmatch(r"0x[0-9a-fA-F]+", value) else None
        return next((v for v in vs if v["id"] == con), None)
    if kind == "pid":
        return next((v for v in vs if str(v.get("pid")) == value), None)
    if kind in ("class", "title", "initialclass", "initialtitle"):
        field = "name" if "title" in kind else "app_id"
        rx = re.compile(value)
        return next((v for v in vs if rx.search(v.get(field) or "")), None)
    return None


def run_action(name, arg):
    """One dispatcher with its hyprlang argument; True when it ran."""
    if name in ("exec", "execr"):
        # As Hyprland does: the whole string to /bin/sh -c, detached. Not through sway's exec,
        # whose command parser would split it at ";" and "," and run the pieces as sway commands.
        STARTED[:] = [p for p in STARTED if p.poll() is None]  # reap the ones that ended
        STARTED.append(subprocess.Popen(["/bin/sh", "-c", arg], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True))
        return True
    if name == "movecursor":
        x, _, y = arg.partition(" ")
        return sway_command("seat - cursor set %d %d" % (int(float(x)), int(float(y))))
    if name in ("focuswindow", "closewindow", "killwindow", "killactive"):
        v = find_window("activewindow" if name == "killactive" else arg)
        if v is None:
            return False
        return sway_command("[con_id=%d] %s" % (v["id"], "focus" if name == "focuswindow" else "kill"))
    return None


def hyprlang_dispatch(rest, v055):
    name, _, arg = rest.partition(" ")
    ok = run_action(name, arg)
    if ok is None:
        return "Invalid dispatcher"
    # 0.41 dispatchers return nothing, so Hyprland answers "ok" whatever happened; 0.55 reports.
    if v055 and not ok:
        return "No such window found" if "window" in name else "dispatcher failed"
    return "ok"


LUA_TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')|(?P<num>-?\d+(?:\.\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|(?P<sym>[{}(),=]))')


def lua_unquote(s):
    body = s[1:-1]
    out = bytearray()
    i = 0
    raw = body.encode()
    while i < len(raw):
        c = raw[i]
        if c == 0x5C and i + 1 < len(raw):
            m = re.match(rb"\d{1,3}", raw[i + 1:i + 4])
            if m:
                out.append(int(m.group(0)))
                i += 1 + len(m.group(0))
                continue
            nxt = raw[i + 1]
            out += {ord("n"): b"\n", ord("t"): b"\t"}.get(nxt, bytes([nxt]))
            i += 2
            continue
        out.append(c)
        i += 1
    return out.decode("utf-8", "replace")


class LuaError(Exception):
    pass


def lua_call(code):
    """Parse `hl.dsp.NAME(args)` (args: nothing, a string, or a flat table) — the dispatcher
    expressions vmhub sends; anything else is a syntax error, as Lua would report it."""
    toks, pos = [], 0
    while pos < len(code):
        m = LUA_TOKEN.match(code, pos)
        if not m or m.end() == pos:
            if code[pos:].strip() == "":
                break
            raise LuaError("unexpected symbol near '%s'" % code[pos:pos + 1])
        toks.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    if len(toks) < 3 or toks[0][0] != "name" or toks[1] != ("sym", "(") or toks[-1] != ("sym", ")"):
        near = toks[1][1] if len(toks) > 1 else (toks[0][1] if toks else "<eof>")
        raise LuaError("')' expected near '%s'" % near)
    fn, inner = toks[0][1], toks[2:-1]
    if not inner:
        return fn, None
    if len(inner) == 1 and inner[0][0] == "str":
        return fn, lua_unquote(inner[0][1])
    if inner[0] != ("sym", "{") or inner[-1] != ("sym", "}"):
        raise LuaError("unexpected symbol near '%s'" % inner[0][1])
    table, body, i = {}, inner[1:-1], 0
    while i < len(body):
        if i + 2 >= len(body) or body[i][0] != "name" or body[i + 1] != ("sym", "="):
            raise LuaError("'}' expected near '%s'" % body[i][1])
        kind, val = body[i + 2]
        table[body[i][1]] = lua_unquote(val) if kind == "str" else float(val) if kind == "num" else val
        i += 3
        if i < len(body) and body[i] == ("sym", ","):
            i += 1
    return fn, table


def lua_dispatch(expr):
    try:
        fn, args = lua_call(expr)
    except LuaError as e:
        return '[string "return hl.dispatch(%s)"]:1: %s' % (expr[:60], e)
    window = args.get("window", "activewindow") if isinstance(args, dict) else "activewindow"
    if fn == "hl.dsp.exec_cmd" or fn == "hl.dsp.exec_raw":
        ok = isinstance(args, str) and run_action("exec", args)
    elif fn == "hl.dsp.focus" and isinstance(args, dict) and "window" in args:
        ok = run_action("focuswindow", window)
    elif fn in ("hl.dsp.window.close", "hl.dsp.window.kill"):
        ok = run_action("closewindow", window)
    elif fn == "hl.dsp.cursor.move" and isinstance(args, dict) and "x" in args and "y" in args:
        ok = run_action("movecursor", "%d %d" % (args["x"], args["y"]))
    else:
        return "attempt to call a nil value (field '%s')" % fn.rsplit(".", 1)[-1]
    if ok:
        return "ok"
    return "No such window found" if fn != "hl.dsp.exec_cmd" and fn != "hl.dsp.exec_raw" else "exec_cmd: bad argument 1"


# ---- the request socket ------------------------------------------------------------------

class StandIn:
    def __init__(self, ver, config):
        self.ver = ver
        major, minor = (int(x) for x in ver.split(".")[:2])
        self.v055 = major > 0 or minor >= 55
        # 0.55 still loads a hyprlang config (for 1-2 releases); then dispatch keeps the old syntax.
        self.lua = self.v055 and config != "hyprlang"

    def reply(self, request):
        fmt_json = False
        params_all = False
        if not request.startswith("[[BATCH]]") and "/" in request:
            sep = 0
            for c in request:
                if c == "/":
                    break
                if c == " ":
                    sep = len(request)
                    break
                sep += 1
                if c == "j":
                    fmt_json = True
                elif c == "a":
                    params_all = True
            if sep < len(request):
                request = request[sep + 1:]
        if request.startswith("[[BATCH]]"):
            return "\n\n\n".join(self.reply(r.strip()) for r in request[9:].split(";") if r.strip())
        word = request.split(" ", 1)[0]
        rest = request.split(" ", 1)[1] if " " in request else ""
        if word == "version" and request == "version":
            return json.dumps(version(self.ver, self.v055), indent=4) if fmt_json else "Hyprland %s (vmhub IPC stand-in)\nTag: v%s\n" % (self.ver, self.ver)
        if word == "clients" and request == "clients":
            return self.text_or_json(clients(self.v055), fmt_json)
        if word == "activewindow" and request == "activewindow":
            focused = [c for c in clients(self.v055) if c["focusHistoryID"] == 0]
            if not focused:
                return "{}" if fmt_json else "Invalid"
            return self.text_or_json(focused[0], fmt_json)
        if word == "monitors":
            return self.text_or_json(monitors(self.v055), fmt_json)
        if word == "dispatch":
            return lua_dispatch(rest) if self.lua else hyprlang_dispatch(rest, self.v055)
        if word == "eval" and self.v055 and not self.lua:
            return "eval is only supported with the lua config manager"
        if word == "eval" and self.v055:
            m = re.fullmatch(r"\s*(?:return\s+)?hl\.dispatch\((.*)\)\s*", rest, re.S)
            return lua_dispatch(m.group(1)) if m else "[string \"%s\"]:1: unsupported by the vmhub stand-in" % rest[:60]
        if word == "eval":
            return "unknown request"
        return "unknown request"

    @staticmethod
    def text_or_json(value, fmt_json):
        if fmt_json:
            return json.dumps(value, indent=4, ensure_ascii=False)
        # The plain format (hyprctl without -j): "Window <hex> -> <title>:" / "Monitor <name> (ID n):",
        # then tab-indented fields, booleans as 0/1 as Hyprland prints them.
        def val(v):
            if isinstance(v, bool):
                return "1" if v else "0"
            if isinstance(v, list):
                return ",".join(str(x) for x in v)
            if isinstance(v, dict):
                return "%s (%s)" % (v.get("id"), v.get("name"))
            return str(v)
        out = []
        for v in value if isinstance(value, list) else [value]:
            if "address" in v:
                head = "Window %s -> %s:" % (v["address"][2:], v["title"])
                fields = [k for k in v if k != "address"]
            else:
                head = "Monitor %s (ID %s):" % (v["name"], v["id"])
                fields = [k for k in v if k not in ("name", "id")]
            out.append(head + "\n" + "".join("\t%s: %s\n" % (k, val(v[k])) for k in fields) + "\n")
        return "".join(out)


def serve_requests(sock, standin):
    while True:
        conn, _ = sock.accept()
        with conn:
            conn.settimeout(5)
            try:
                data = b""
                while True:
                    part = conn.recv(1023)
                    data += part
                    if len(part) < 1023:
                        break
                if not data:
                    continue
                out = standin.reply(data.decode("utf-8", "replace"))
            except Exception as e:  # a broken request never ends the server
                out = "error: %s" % e
            try:
                conn.sendall(out.encode())
            except OSError:
                pass


def serve_events(sock, listeners, lock):
    while True:
        conn, _ = sock.accept()
        with lock:
            listeners.append(conn)


def pump_events(listeners, lock):
    """sway window events → Hyprland socket2 lines (openwindow, closewindow, activewindowv2)."""
    proc = subprocess.Popen(["swaymsg", "-r", "-m", "-t", "subscribe", '["window"]'], stdout=subprocess.PIPE)
    dec = json.JSONDecoder()
    buf = ""
    for chunk in iter(lambda: proc.stdout.readline(), b""):
        buf += chunk.decode("utf-8", "replace")
        while buf.strip():
            try:
                ev, end = dec.raw_decode(buf.lstrip())
            except ValueError:
                break
            buf = buf.lstrip()[end:]
            c = ev.get("container") or {}
            addr = "%x" % address_of(c.get("id", 0))
            lines = {"new": ["openwindow>>%s,1,%s,%s" % (addr, c.get("app_id") or "", c.get("name") or "")],
                     "close": ["closewindow>>%s" % addr],
                     "focus": ["activewindow>>%s,%s" % (c.get("app_id") or "", c.get("name") or ""), "activewindowv2>>%s" % addr]}.get(ev.get("change"), [])
            with lock:
                for line in lines:
                    for l in list(listeners):
                        try:
                            l.sendall((line + "\n").encode())
                        except OSError:
                            listeners.remove(l)


def main():
    ap = argparse.ArgumentParser(description="vmhub Hyprland IPC stand-in backed by sway")
    ap.add_argument("--version", default="0.41.2", help="Hyprland version to play: 0.41.2 (hyprlang) or 0.55.x (Lua)")
    ap.add_argument("--signature", default="vmhub-standin")
    ap.add_argument("--runtime-dir", default=os.environ.get("XDG_RUNTIME_DIR", ""))
    ap.add_argument("--config", choices=["lua", "hyprlang"], default="lua", help="0.55+: which config manager it plays (hyprlang keeps the old dispatch syntax)")
    a = ap.parse_args()
    if not re.fullmatch(r"\d+\.\d+\.\d+", a.version):
        sys.exit("--version must look like 0.41.2")
    if not a.runtime_dir:
        sys.exit("XDG_RUNTIME_DIR is not set and --runtime-dir not given")
    if swaymsg("-t", "get_version") is None:
        sys.exit("sway does not answer (swaymsg -t get_version): start sway first and set SWAYSOCK")
    d = os.path.join(a.runtime_dir, "hypr", a.signature)
    os.makedirs(d, mode=0o700, exist_ok=True)
    paths = [os.path.join(d, n) for n in (".socket.sock", ".socket2.sock")]
    socks = []
    for p in paths:
        if os.path.exists(p):
            os.unlink(p)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(p)
        s.listen(16)
        socks.append(s)
    lock_path = os.path.join(d, "hyprland.lock")
    with open(lock_path + ".part", "w") as f:
        f.write("%d\n%s\n" % (os.getpid(), os.environ.get("WAYLAND_DISPLAY", "wayland-1")))
    os.replace(lock_path + ".part", lock_path)

    def stop(*_):
        for p in paths + [lock_path]:
            try:
                os.unlink(p)
            except OSError:
                pass
        try:
            os.rmdir(d)
        except OSError:
            pass
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    listeners, lock = [], threading.Lock()
    threading.Thread(target=serve_events, args=(socks[1], listeners, lock), daemon=True).start()
    threading.Thread(target=pump_events, args=(listeners, lock), daemon=True).start()
    serve_requests(socks[0], StandIn(a.version, a.config))


if __name__ == "__main__":
    main()
