/**
 * The Wayland client the guest helpers are built on (python3 stdlib, sent with each command):
 * the connection to the compositor ($XDG_RUNTIME_DIR/$WAYLAND_DISPLAY), requests (with an fd
 * when one goes along), the registry's globals, bind, and a wl_display.sync round trip. An error
 * from the compositor, or its closing the connection, exits 70; a missing global exits 71.
 * `hook`, when set, sees every event first (obj, opcode, body). `daemon` starts a kept helper:
 * forked into its own session, stdio on /dev/null; the parent returns once the child wrote
 * "ready" to the descriptor it was given, or exits with the child's complaint.
 * vpointer.ts (the pointer), vkeyboard.ts (the kept keyboard) and capture.ts (the kept screen
 * capture) append their own program.
 */
export const WAYLAND_PY = String.raw`
import os, select, socket, struct, sys, time
def fail(code, msg):
    sys.stderr.write(msg + "\n"); sys.stderr.flush(); os._exit(code)
def ms(): return int(time.monotonic() * 1000) & 0xffffffff
def wstr(t):
    b = t.encode() + b"\0"
    return struct.pack("<I", len(b)) + b + b"\0" * (-len(b) % 4)

class Wayland:
    def __init__(self):
        path = os.path.join(os.environ["XDG_RUNTIME_DIR"], os.environ.get("WAYLAND_DISPLAY", "wayland-0"))
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try: self.s.connect(path)
        except OSError as e: fail(70, "failed to connect to wayland display %s: %s" % (path, e))
        self.buf, self.last, self.globals, self.caps, self.seat, self.done, self.hook = b"", 2, {}, 0, 0, set(), None
        self.send(1, 1, struct.pack("<I", 2))
    def id(self):
        self.last += 1; return self.last
    def send(self, obj, op, payload=b"", fd=None):
        data = struct.pack("<II", obj, ((8 + len(payload)) << 16) | op) + payload
        if fd is None: self.s.sendall(data)
        else: self.s.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("<i", fd))])
    def bind(self, iface, version):
        if iface not in self.globals: fail(71, "the compositor offers no %s" % iface)
        oid = self.id()
        self.send(2, 0, struct.pack("<I", self.globals[iface]) + wstr(iface) + struct.pack("<II", version, oid))
        return oid
    def pump(self):
        chunk = self.s.recv(65536)
        if not chunk: fail(70, "the compositor closed the connection")
        self.buf += chunk
        while len(self.buf) >= 8:
            obj, szop = struct.unpack_from("<II", self.buf)
            size, op = szop >> 16, szop & 0xffff
            if len(self.buf) < size: break
            body, self.buf = self.buf[8:size], self.buf[size:]
            if self.hook: self.hook(obj, op, body)
            if obj == 1 and op == 0:
                oid, code, n = struct.unpack_from("<III", body)
                fail(70, "wayland error %d on object %d: %s" % (code, oid, body[12:12 + n - 1].decode()))
            elif obj == 2 and op == 0:
                name, n = struct.unpack_from("<II", body)
                self.globals.setdefault(body[8:8 + n - 1].decode(), name)
            elif obj == self.seat and op == 0:
                self.caps = struct.unpack_from("<I", body)[0]
            elif op == 0:
                self.done.add(obj)
    def roundtrip(self):
        cb = self.id()
        self.send(1, 0, struct.pack("<I", cb))
        while cb not in self.done: self.pump()
        self.done.discard(cb)

def daemon(run, what):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r); os.setsid()
        null = os.open("/dev/null", os.O_RDWR)
        os.dup2(null, 0); os.dup2(null, 1); os.dup2(w, 2)
        run(w); os._exit(0)
    os.close(w)
    msg = b""
    while True:
        c = os.read(r, 4096)
        if not c: break
        msg += c
    if not msg.startswith(b"ready"):
        status = os.waitpid(pid, 0)[1]
        sys.stderr.write(msg.decode("utf-8", "replace").strip() or "the %s did not start" % what)
        sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) and os.WEXITSTATUS(status) else 70)
`;
