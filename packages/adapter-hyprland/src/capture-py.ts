/**
 * The kept screen capture helper, the guest half (python3 stdlib, sent with the command that
 * starts it; its Wayland part is wayland-py.ts). Contract, with capture.ts (the host half):
 * - Argv: DIR IDLE. DIR is the screen directory the provider shares with the vmhub host
 *   ($VMHUB_FBDIR/screen); a helper already listening there is reused (exit 0 at once).
 *   Otherwise the helper is started (daemon) and listens on DIR/wl-capture.sock (mode 0666: the
 *   vmhub host's user connects through the shared directory), then exit 0.
 * - The frame lives in DIR/Xvfb_screen0: an XWD file (the format and name Xvfb -fbdir keeps, so
 *   the provider's framebuffer() finds it), whose pixel rows are the wl_shm buffer the compositor
 *   copies into (zwlr_screencopy_manager_v1): no copy by the helper, none through the guest's
 *   channel. A new size or format writes a new file (renamed into place); until the first
 *   capture the file is a 1×1 placeholder, so the provider finds it from the start.
 * - Requests are lines. `w NAME` copies output NAME now (`w` alone: the only output) and then
 *   KEEPS the file current: a copy_with_damage frame (screencopy v2) is always pending, so the
 *   compositor copies into the file at each commit that damaged the output, and the host reads
 *   the file with no request at all (as Xvfb -fbdir's file is read). `c NAME` copies once and
 *   stops keeping it (nothing writes the file until the next request). Both answer, once the
 *   copy is in the file, `ok W H STRIDE FORMAT OFFSET FLAGS GEN MODE` (FORMAT a wl_shm format,
 *   OFFSET where the rows start, FLAGS the frame's (1: y-inverted), GEN a count of output
 *   changes seen since start — a mode, scale, position, transform, name, an output added or
 *   removed — MODE `watch` when the file is kept, `once` when not: screencopy v1, a y-inverted
 *   frame); or `err WHY`, e.g. for a transformed output (grim applies transforms, this helper
 *   does not). `q` stops the helper.
 * - GEN is also in the file, the XWD header's window_bdrwidth (offset 96, big-endian), written
 *   as soon as it moves (also when keeping the file failed): a reader sees in the frame it read
 *   whether the layout it holds, or the file's upkeep, still stands.
 * - Tearing: while the file is kept, the compositor may write it during a host read; a reader
 *   takes a frame only when two reads agree (or one equals the last frame it took), and asks `c`
 *   otherwise. After `c`, nothing writes the file until the next request.
 * - It exits after IDLE seconds with no connection, when the compositor goes away, or at `q`.
 */
import { WAYLAND_PY } from './wayland-py.ts';

export const CAPTURE_SOCKET = 'wl-capture.sock';

export const CAPTURE_PY = WAYLAND_PY + String.raw`
HEADER = 120
MASKS = {0: (0xff0000, 0xff00, 0xff), 1: (0xff0000, 0xff00, 0xff), 0x34324241: (0xff, 0xff00, 0xff0000), 0x34324258: (0xff, 0xff00, 0xff0000)}

def xwd_header(fmt, width, height, stride, gen=0):
    r, g, b = MASKS.get(fmt, MASKS[1])
    f = [HEADER, 7, 2, 24, width, height, 0, 0, 32, 0, 32, 32, stride, 4, r, g, b, 8, 256, 0, width, height, 0, 0, gen]
    return struct.pack(">25I", *f) + b"vmhub wl-screencopy\0"

def wl_string(body, at):
    n = struct.unpack_from("<I", body, at)[0]
    return body[at + 4:at + 4 + n - 1], at + 4 + n + (-n % 4)

class Capture:
    def __init__(self, path):
        self.path, self.gen, self.started, self.listed, self.versions = path, 0, False, [], {}
        self.outputs, self.transform, self.xdg_of, self.frame, self.pool = {}, {}, {}, {}, None
        self.watch, self.wframe, self.fd, self.marked = None, {}, None, 0
        w = self.w = Wayland()
        w.hook = self.event
        w.roundtrip()
        self.shm = w.bind("wl_shm", 1)
        self.mgr = w.bind("zwlr_screencopy_manager_v1", min(self.versions.get("zwlr_screencopy_manager_v1", 1), 2))
        self.damage = self.versions.get("zwlr_screencopy_manager_v1", 1) >= 2
        self.xdg = w.bind("zxdg_output_manager_v1", 2) if "zxdg_output_manager_v1" in w.globals else 0
        for name, version in self.listed: self.add_output(name, version)
        w.roundtrip()
        self.started = True
    def add_output(self, name, version):
        oid = self.w.id()
        self.w.send(2, 0, struct.pack("<I", name) + wstr("wl_output") + struct.pack("<II", min(version, 4), oid))
        self.outputs[oid], self.transform[oid] = name, 0
        if self.xdg:
            xo = self.w.id()
            self.w.send(self.xdg, 1, struct.pack("<II", xo, oid))
            self.xdg_of[xo] = oid
    def event(self, obj, op, body):
        if obj == 2:
            if op == 0:
                name = struct.unpack_from("<I", body)[0]
                iface, at = wl_string(body, 4)
                version = struct.unpack_from("<I", body, at)[0]
                self.versions.setdefault(iface.decode(), version)
                if iface != b"wl_output": return
                if self.started: self.add_output(name, version); self.gen += 1
                else: self.listed.append((name, version))
            elif op == 1:
                name = struct.unpack_from("<I", body)[0]
                for oid in [o for o, v in self.outputs.items() if v == name]:
                    del self.outputs[oid]; self.gen += 1
            return
        for f in (self.frame, self.wframe):
            if obj == f.get("id"):
                f[op] = body
                return
        oid = self.xdg_of.get(obj, obj)
        if oid not in self.outputs: return
        if (obj == oid and op == 4) or (obj != oid and op == 3):
            self.outputs[oid] = wl_string(body, 0)[0].decode()
        elif obj == oid and op == 0:
            self.transform[oid] = struct.unpack_from("<i", body, wl_string(body, wl_string(body, 20)[1])[1])[0]
        if self.started: self.gen += 1
    def wait(self, *ops):
        while not any(op in self.frame for op in ops): self.w.pump()
    def buffer_for(self, fmt, width, height, stride):
        key = (fmt, width, height, stride)
        if self.pool and self.pool[0] == key: return self.pool[1]
        if self.pool: self.w.send(self.pool[1], 0); self.w.send(self.pool[2], 1)
        size = HEADER + stride * height
        tmp = self.path + ".new"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        os.ftruncate(fd, size)
        os.pwrite(fd, xwd_header(fmt, width, height, stride, self.gen), 0)
        pool = self.w.id()
        self.w.send(self.shm, 0, struct.pack("<Ii", pool, size), fd)
        buf = self.w.id()
        self.w.send(pool, 0, struct.pack("<IiiiiI", buf, HEADER, width, height, stride, fmt))
        os.rename(tmp, self.path)
        if self.fd is not None: os.close(self.fd)
        self.fd, self.marked, self.pool = fd, self.gen, (key, buf, pool)
        return buf
    def mark(self):
        # GEN goes into the file too (the XWD header's window_bdrwidth): a reader sees a change
        # in the very frame it read, with no message to wait for.
        if self.fd is not None and self.marked != self.gen:
            self.marked = self.gen
            os.pwrite(self.fd, struct.pack(">I", self.gen), 96)
    def unwatch(self):
        if self.wframe: self.w.send(self.wframe["id"], 1)
        self.watch, self.wframe = None, {}
    def arm(self):
        fr = self.w.id()
        self.wframe = {"id": fr}
        self.w.send(self.mgr, 0, struct.pack("<IiI", fr, 0, self.watch))
    def step(self):
        # The kept frame: copy_with_damage, the compositor copies at its next commit that damaged
        # the output; then the next one at once. A failure or an unusable frame ends watching
        # (GEN moves, so the host asks again).
        f = self.wframe
        if not f: return
        if 0 in f and "sent" not in f:
            f["sent"] = True
            self.w.send(f["id"], 2, struct.pack("<I", self.buffer_for(*struct.unpack_from("<IIII", f[0]))))
        if 2 in f or 3 in f:
            self.w.send(f["id"], 1)
            self.wframe = {}
            if 3 in f or struct.unpack_from("<I", f.get(1, bytes(4)))[0] & 1 or self.watch not in self.outputs:
                self.watch = None; self.gen += 1
            else: self.arm()
        self.mark()
    def capture(self, name, keep):
        self.unwatch()
        named = [o for o, v in self.outputs.items() if v == name] if name else list(self.outputs)
        if len(named) != 1: return "err " + ("no output named " + name if name else "%d outputs" % len(named))
        if self.transform[named[0]]: return "err the output is transformed"
        fr = self.w.id()
        self.frame = {"id": fr}
        self.w.send(self.mgr, 0, struct.pack("<IiI", fr, 0, named[0]))
        self.wait(0, 3)
        if 0 in self.frame:
            fmt, width, height, stride = struct.unpack_from("<IIII", self.frame[0])
            self.w.send(fr, 0, struct.pack("<I", self.buffer_for(fmt, width, height, stride)))
            self.wait(2, 3)
        self.w.send(fr, 1)
        if 3 in self.frame: return "err the compositor failed the copy"
        flags = struct.unpack_from("<I", self.frame[1])[0] if 1 in self.frame else 0
        mode = "once"
        if keep and self.damage and not flags & 1:
            self.watch, mode = named[0], "watch"
            self.arm()
        self.mark()
        return "ok %d %d %d %d %d %d %d %s" % (width, height, stride, fmt, HEADER, flags, self.gen, mode)

def serve(folder, idle, ready):
    cap = Capture(os.path.join(folder, "Xvfb_screen0"))
    if not os.path.exists(cap.path):
        with open(cap.path + ".new", "wb") as f: f.write(xwd_header(1, 1, 1, 4) + b"\0" * 4)
        os.rename(cap.path + ".new", cap.path)
    path = os.path.join(folder, "${CAPTURE_SOCKET}")
    try: os.unlink(path)
    except OSError: pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path); os.chmod(path, 0o666); srv.listen(8)
    os.write(ready, b"ready\n"); os.close(ready)
    null = os.open("/dev/null", os.O_RDWR); os.dup2(null, 2)
    conns, used = {}, time.time()
    def stop():
        try: os.unlink(path)
        except OSError: pass
        os._exit(0)
    def send(c, line):
        try: c.sendall(line.encode())
        except OSError: pass
    while True:
        r, _, _ = select.select([srv, cap.w.s] + list(conns), [], [], 1.0)
        if cap.w.s in r: cap.w.pump(); cap.step()
        if srv in r: conns[srv.accept()[0]] = b""
        for c in [c for c in r if c in conns]:
            try: data = c.recv(4096)
            except OSError: data = b""
            if not data: c.close(); del conns[c]; continue
            conns[c] += data
            while b"\n" in conns[c]:
                line, conns[c] = conns[c].split(b"\n", 1)
                a = line.decode("utf-8", "replace").split(" ")
                if a[0] == "q": stop()
                send(c, cap.capture(a[1] if len(a) > 1 else "", a[0] == "w") + "\n")
            used = time.time()
        if conns: used = time.time()
        elif time.time() - used > idle: stop()

folder, idle = sys.argv[1], int(sys.argv[2])
probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try: probe.connect(os.path.join(folder, "${CAPTURE_SOCKET}")); sys.exit(0)
except OSError: probe.close()
daemon(lambda ready: serve(folder, idle, ready), "screen capture helper")
`;
