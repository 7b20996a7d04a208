/**
 * The keyboard: one zwp_virtual_keyboard_v1 per session, kept open by a long-lived helper in the
 * guest (python3 stdlib, sent with the command, on the Wayland client it shares with the pointer:
 * wayland-py.ts, vpointer.ts), so vm_type and
 * vm_key start no wtype and wait no settle.
 *
 * Contract:
 * - The helper (`serve`) listens on `$XDG_RUNTIME_DIR/vmhub-vkbd-<session>.sock` (the runtime
 *   dir is the desktop user's, mode 0700: only that user can connect). Each call runs one guest
 *   command, a client: it connects, sends the ops length-framed and waits for the helper's
 *   answer. The client is perl while the helper listens (a few ms to start, python3 several
 *   times that); with no socket, or a dead one, the python3 program is the client and starts
 *   the helper first (forked, its own session, stdio on /dev/null), connecting once it listens.
 * - Ops are wtype's argument language (keys.ts builds them): `-M/-m MOD` press/release a
 *   modifier, `-k NAME` tap a key, `-P/-p NAME` press/release one, `-d MS` the delay between
 *   keystrokes, `-t TEXT` (or a bare argument) types TEXT. Names are X keysym names the host
 *   validated (keys.ts); characters type as their Unicode keysym, "\n" as Return, "\t" as Tab.
 * - Unicode parity with wtype: the helper's keymap holds exactly the keysyms it was asked for,
 *   one keycode each (wtype's keymap shape). A call whose keysyms are all bound uploads nothing;
 *   otherwise it uploads one keymap with the new ones added (up to 240 keycodes; beyond, the
 *   map restarts with this call's keysyms) BEFORE its first event, so no character is typed
 *   under a map that lacks it (the compositor sends the new map to the client ahead of the keys).
 * - Delivery: after the last event the helper does a wl_display.sync round trip — the compositor
 *   has then handled every key and forwarded it to the focused client — and only then answers.
 *   No fixed sleep, except once when the helper is born on a seat that had no keyboard yet
 *   (headless sway has none): clients bind wl_keyboard only after the seat announces one, so
 *   that first start waits input_settle_ms. A seat that already had a keyboard pays nothing.
 * - Another virtual keyboard that comes and goes (wtype, which still holds modifiers for a click
 *   and presses paste's chord) leaves the seat with no current keyboard when it ends: clients
 *   started then get no keymap, and foot, for one, then ignores the mouse. `-r` makes the kept
 *   keyboard the seat's current one again (a modifier change the compositor must forward: Mod3
 *   on and off, a modifier no keymap here uses); reclaimKeyboard sends it after such actions.
 * - Cancellation: a cancelled call kills its client (the channel's exec gets ctx.signal); the
 *   helper watches the connection between keystrokes, stops at the close, releases what it held
 *   (keys and modifiers) and waits for the next call.
 * - The helper exits after keyboard_hold_seconds without a call, when the compositor goes away,
 *   or at dispose (HOLDER_STOP_SCRIPT in vpointer.ts, which stops the pointer holder too).
 */
import type { AdapterContext } from '@vmhub/core';
import { hyprError } from './errors.ts';
import type { HyprRuntime } from './runtime.ts';
import { WAYLAND_PY } from './wayland-py.ts';

export const VKEYBOARD_PY = WAYLAND_PY + String.raw`
MAX = 240
MODS = {"shift": 1, "capslock": 2, "ctrl": 4, "alt": 8, "logo": 64, "altgr": 128}
SPECIAL = {"\n": "Return", "\t": "Tab", "\b": "BackSpace", "\x1b": "Escape", "\x7f": "Delete"}
FLAGS = ("-M", "-m", "-k", "-P", "-p", "-d", "-t")
class Refused(Exception): pass
def sym(ch):
    if ch in SPECIAL: return SPECIAL[ch]
    cp = ord(ch)
    if cp < 0x20 or 0x7f <= cp < 0xa0: raise Refused("character U+%04X has no key" % cp)
    return "U%04X" % cp

class Keyboard:
    def __init__(self, settle_ms):
        w = self.w = Wayland()
        w.roundtrip()
        w.seat = w.bind("wl_seat", 1)
        mgr = w.bind("zwp_virtual_keyboard_manager_v1", 1)
        w.roundtrip()
        had = w.caps & 2
        self.kbd = w.id()
        w.send(mgr, 0, struct.pack("<II", w.seat, self.kbd))
        self.keys, self.index, self.held, self.mods = [], {}, [], 0
        self.bind(["space"])
        w.roundtrip()
        if not had: time.sleep(settle_ms / 1000)
    def bind(self, names):
        new = [n for n in dict.fromkeys(names) if n not in self.index]
        if not new: return
        if len(self.keys) + len(new) > MAX:
            self.keys, self.index = [], {}
            new = list(dict.fromkeys(names))[:MAX]
        for n in new:
            self.index[n] = len(self.keys); self.keys.append(n)
        text = ["xkb_keymap {", 'xkb_keycodes "(unnamed)" {', "minimum = 8;", "maximum = %d;" % (len(self.keys) + 9)]
        text += ["<K%d> = %d;" % (i + 1, i + 9) for i in range(len(self.keys))]
        text += ["};", 'xkb_types "(unnamed)" { include "complete" };', 'xkb_compatibility "(unnamed)" { include "complete" };', 'xkb_symbols "(unnamed)" {']
        text += ["key <K%d> {[ %s ]};" % (i + 1, n) for i, n in enumerate(self.keys)]
        data = ("\n".join(text + ["};", "};", ""])).encode() + b"\0"
        fd = os.memfd_create("vmhub-keymap")
        view = memoryview(data)
        while view: view = view[os.write(fd, view):]
        self.w.send(self.kbd, 0, struct.pack("<II", 1, len(data)), fd)
        os.close(fd)
    def key(self, name, down):
        if name not in self.index: self.bind([name])
        self.w.send(self.kbd, 1, struct.pack("<III", ms(), self.index[name] + 1, 1 if down else 0))
        if down: self.held.append(name)
        elif name in self.held: self.held.remove(name)
    def modifiers(self, mask):
        self.mods = mask
        self.w.send(self.kbd, 2, struct.pack("<IIII", mask, 0, 0, 0))
    def release(self):
        for name in list(self.held): self.key(name, False)
        if self.mods: self.modifiers(0)
    def play(self, args, gone):
        names, i = [], 0
        while i < len(args):
            a = args[i]
            if a in ("-k", "-P", "-p"): names.append(args[i + 1]); i += 2
            elif a in ("-M", "-m"):
                if args[i + 1] not in MODS: raise Refused("no modifier named '%s'" % args[i + 1])
                i += 2
            elif a in ("-d", "-t"):
                if a == "-t": names.extend(sym(c) for c in args[i + 1])
                i += 2
            elif a == "-r": i += 1
            else: names.extend(sym(c) for c in a); i += 1
        self.bind(names)
        delay, i = 0.0, 0
        def tap(name):
            self.key(name, True); self.key(name, False)
            if gone(delay): raise EOFError()
        while i < len(args):
            a = args[i]; v = args[i + 1] if i + 1 < len(args) and a in FLAGS else None
            i += 2 if v is not None else 1
            if a == "-M": self.modifiers(self.mods | MODS[v])
            elif a == "-m": self.modifiers(self.mods & ~MODS[v])
            elif a == "-k": tap(v)
            elif a == "-P": self.key(v, True)
            elif a == "-p": self.key(v, False)
            elif a == "-d": delay = int(v) / 1000
            elif a == "-r": self.modifiers(self.mods | 32); self.modifiers(self.mods & ~32)
            else:
                for c in (v if a == "-t" else a): tap(sym(c))
        self.release()
        self.w.roundtrip()

def read_request(conn):
    data = b""
    while len(data) < 4 or len(data) < 4 + struct.unpack_from("<I", data)[0]:
        chunk = conn.recv(65536)
        if not chunk: return None
        data += chunk
    return data[4:].decode("utf-8", "surrogateescape").split("\0")

def serve(base, settle_ms, idle, ready):
    sock = base + ".sock"
    kb = Keyboard(settle_ms)
    try: os.unlink(sock)
    except OSError: pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock); srv.listen(8)
    with open(base + ".pid", "w") as f: f.write(str(os.getpid()))
    os.write(ready, b"ready\n"); os.close(ready)
    null = os.open("/dev/null", os.O_RDWR); os.dup2(null, 2)
    used = time.time()
    def handle(conn):
        try:
            args = read_request(conn)
            if args is None: return
            def gone(wait):
                r, _, _ = select.select([conn], [], [], wait)
                return bool(r) and not conn.recv(1)
            try:
                kb.play(args, gone); conn.sendall(b"ok\n")
            except Refused as e:
                conn.sendall(b"refused " + str(e).encode())
            except EOFError:
                kb.release(); kb.w.roundtrip()
        except OSError:
            kb.release(); kb.w.roundtrip()
        finally: conn.close()
    while True:
        r, _, _ = select.select([srv, kb.w.s], [], [], 1.0)
        if kb.w.s in r: kb.w.pump()
        if srv in r:
            conn, _ = srv.accept(); handle(conn); used = time.time()
        elif time.time() - used > idle:
            os.unlink(sock)
            srv.setblocking(False)
            try:
                while True: handle(srv.accept()[0])
            except OSError: pass
            try: os.unlink(base + ".pid")
            except OSError: pass
            os._exit(0)

def start(base, settle_ms, idle):
    daemon(lambda ready: serve(base, settle_ms, idle, ready), "keyboard helper")

def send(base, settle_ms, idle, args):
    payload = "\0".join(args).encode("utf-8", "surrogateescape")
    for attempt in (0, 1):
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try: conn.connect(base + ".sock")
        except OSError:
            conn.close()
            if attempt: fail(70, "the keyboard helper does not listen")
            start(base, settle_ms, idle); continue
        conn.sendall(struct.pack("<I", len(payload)) + payload)
        reply = b""
        while True:
            c = conn.recv(4096)
            if not c: break
            reply += c
        if reply.startswith(b"ok"): sys.exit(0)
        if reply.startswith(b"refused "): fail(65, reply[8:].decode("utf-8", "replace"))
        fail(70, "the keyboard helper ended without an answer")

base = os.path.join(os.environ["XDG_RUNTIME_DIR"], "vmhub-vkbd-" + sys.argv[1])
send(base, int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
`;

// The client of a call while the helper listens: perl (perl-base is in every golden) starts in
// a fraction of python3's time. Exit 99: no helper to talk to, so the python3 client starts one.
const VKEYBOARD_PL = String.raw`
use Socket;
my ($id, undef, undef, @ops) = @ARGV;
socket(my $s, PF_UNIX, SOCK_STREAM, 0) or exit 99;
connect($s, pack_sockaddr_un("$ENV{XDG_RUNTIME_DIR}/vmhub-vkbd-$id.sock")) or exit 99;
my $p = join("\0", @ops);
binmode $s;
my $m = pack("V", length($p)) . $p;
while (length $m) { my $n = syswrite($s, $m) // exit 70; substr($m, 0, $n) = ''; }
my ($r, $b) = ('', '');
while (sysread($s, $b, 4096)) { $r .= $b }
exit 0 if $r =~ /^ok/;
if ($r =~ /^refused (.*)/s) { print STDERR "$1
"; exit 65 }
print STDERR "the keyboard helper ended without an answer
"; exit 70;
`;

const CLIENT_SCRIPT = String.raw`
pl=$1; py=$2; shift 2
if command -v perl >/dev/null 2>&1; then perl -e "$pl" "$@"; rc=$?; [ "$rc" = 99 ] || exit "$rc"; fi
exec python3 -S -c "$py" "$@"
`;

/** Exit codes of the client: 65 a request the helper refuses, 71 no virtual keyboard protocol. */
const REFUSED = 65, NO_PROTOCOL = 71;

/**
 * Play keyboard ops (the contract above) on the session's kept virtual keyboard; returns once
 * the compositor has delivered every event. `chars` sizes the timeout (keystrokes × delay).
 */
export async function playKeys(rt: HyprRuntime, ctx: AdapterContext, ops: string[], label: string, chars = ops.length): Promise<void> {
  const guest = await rt.guest(ctx);
  const o = rt.options;
  rt.holderStarted = rt.keyboardStarted = true;
  const ms = chars * (o.type_delay_ms + 5) + o.input_settle_ms;
  const res = await guest.sh(CLIENT_SCRIPT, [VKEYBOARD_PL, VKEYBOARD_PY, rt.holderId, String(o.input_settle_ms), String(o.keyboard_hold_seconds), ...ops], {
    needs: ['python3'],
    okCodes: [0, REFUSED, NO_PROTOCOL],
    label,
    timeoutMs: Math.max(o.command_timeout_ms, ms * 2 + 5000),
  });
  if (res.exit_code === 0) return;
  const stderr = res.stderr.toString('utf8').trim().slice(0, 300);
  if (res.exit_code === REFUSED) throw hyprError('INVALID_REQUEST', `${label}: ${stderr}`);
  throw hyprError('CAPABILITY_UNAVAILABLE', `${label}: ${stderr}: the compositor has no virtual keyboard protocol (zwp_virtual_keyboard_v1), which sway and Hyprland both offer`);
}

/**
 * After an action that used another virtual keyboard (wtype): make the session's kept keyboard
 * the seat's current one again, if the session has one. Best effort: a failure here does not
 * undo the action that succeeded.
 */
export async function reclaimKeyboard(rt: HyprRuntime, ctx: AdapterContext): Promise<void> {
  if (!rt.keyboardStarted) return;
  await playKeys(rt, ctx, ['-r'], 'keyboard reclaim').catch(() => undefined);
}
