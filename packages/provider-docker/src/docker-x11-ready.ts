/**
 * Readiness checks made from the host, over the X server's socket the provider shares
 * (docker-framebuffer.ts: the container's /tmp/.X11-unix is `<machine dir>/x11`), instead of a
 * `docker exec` per poll. Two of the X11 desktop's probes have an exact equivalent here:
 *
 *   xdpyinfo -display $DISPLAY  → the X server completes connection setup for a new client;
 *   wmctrl -m                   → the root window carries _NET_SUPPORTING_WM_CHECK, naming a
 *                                 window that carries it too (how an EWMH window manager says it
 *                                 runs; wmctrl -m fails without it).
 *
 * A check answers true, or a line saying what it saw (polled again), or `unusable` when the server
 * refuses this client (it wants a cookie: the golden's Xvfb runs with -ac, another may not) — the
 * caller then runs the probe in the guest as before. Only the core protocol, little-endian, no
 * authentication; each check is one short-lived connection.
 */
import { connect, type Socket } from 'node:net';

export type HostCheck = (socketPath: string) => Promise<true | string | { unusable: string }>;

const X_INTERN_ATOM = 16;
const X_GET_PROPERTY = 20;
const ATOM_WINDOW = 33;
const WM_CHECK = '_NET_SUPPORTING_WM_CHECK';

const pad4 = (n: number) => (4 - (n % 4)) % 4;

/** The host equivalent of a probe's argv, when there is one (argv after $DISPLAY was filled in). */
export function hostCheckFor(argv: string[]): HostCheck | undefined {
  if (argv[0] === 'xdpyinfo' && (argv.length === 1 || (argv.length === 3 && argv[1] === '-display'))) return displayAnswers;
  if (argv.length === 2 && argv[0] === 'wmctrl' && argv[1] === '-m') return windowManagerRuns;
  return undefined;
}

/** The display number of ":0" / ":0.0" / "host:1"; undefined for a display that is not local. */
export function displayNumber(display: string): number | undefined {
  const m = /^(?:unix)?:(\d+)(?:\.\d+)?$/.exec(display);
  return m ? Number(m[1]) : undefined;
}

const displayAnswers: HostCheck = async (path) => {
  const x = await XClient.open(path).catch((err: Error) => err);
  if (x instanceof Error) return x instanceof Refused ? { unusable: x.message } : x.message;
  x.close();
  return true;
};

const windowManagerRuns: HostCheck = async (path) => {
  const x = await XClient.open(path).catch((err: Error) => err);
  if (x instanceof Error) return x instanceof Refused ? { unusable: x.message } : x.message;
  try {
    const atom = await x.internAtom(WM_CHECK);
    if (atom === 0) return `no ${WM_CHECK} atom yet: no EWMH window manager has started`;
    const child = await x.windowProperty(x.root, atom);
    if (child === undefined) return `the root window has no ${WM_CHECK}: the window manager has not started`;
    // A window manager that died leaves the property naming a window that is gone (BadWindow) or no longer carries it.
    const self = await x.windowProperty(child, atom).catch(() => undefined);
    if (self !== child) return `${WM_CHECK} names window 0x${child.toString(16)}, which does not carry it: the window manager is not running`;
    return true;
  } finally {
    x.close();
  }
};

class Refused extends Error {}

/** A minimal X client: setup, then requests answered in order (no events are asked for). */
class XClient {
  readonly root: number;
  readonly #socket: Socket;
  #buffer: Buffer;

  private constructor(socket: Socket, root: number, rest: Buffer) {
    this.#socket = socket;
    this.root = root;
    this.#buffer = rest;
  }

  /** Connect and set up; the connection is destroyed `timeoutMs` after it opened, answered or not. */
  static async open(path: string, timeoutMs = 2000): Promise<XClient> {
    const socket = connect(path);
    const timer = setTimeout(() => socket.destroy(new Error(`the X server at ${path} did not answer within ${timeoutMs} ms`)), timeoutMs);
    socket.once('close', () => clearTimeout(timer));
    try {
      await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
      const header = Buffer.alloc(12);
      header[0] = 0x6c; // 'l': little-endian
      header.writeUInt16LE(11, 2);
      socket.write(header);
      let data = await read(socket, Buffer.alloc(0), 8);
      const extra = data.readUInt16LE(6) * 4;
      data = await read(socket, data, 8 + extra);
      if (data[0] !== 1) {
        const reason = data.subarray(8, 8 + data[1]!).toString('latin1').trim();
        throw new Refused(`the X server at ${path} refused a client without a cookie${reason ? `: ${reason}` : ''}`);
      }
      const vendorLength = data.readUInt16LE(24);
      const root = data.readUInt32LE(40 + vendorLength + pad4(vendorLength) + 8 * data[29]!);
      return new XClient(socket, root, data.subarray(8 + extra));
    } catch (err) {
      socket.destroy();
      throw err;
    }
  }

  /** InternAtom(only-if-exists): 0 when no client has made the atom. */
  async internAtom(name: string): Promise<number> {
    const bytes = Buffer.from(name, 'latin1');
    const req = Buffer.alloc(8 + bytes.length + pad4(bytes.length));
    req[0] = X_INTERN_ATOM;
    req[1] = 1;
    req.writeUInt16LE(req.length / 4, 2);
    req.writeUInt16LE(bytes.length, 4);
    bytes.copy(req, 8);
    return (await this.#request(req)).readUInt32LE(8);
  }

  /** The first WINDOW of a property, or undefined when the window does not have it. */
  async windowProperty(window: number, atom: number): Promise<number | undefined> {
    const req = Buffer.alloc(24);
    req[0] = X_GET_PROPERTY;
    req.writeUInt16LE(6, 2);
    req.writeUInt32LE(window, 4);
    req.writeUInt32LE(atom, 8);
    req.writeUInt32LE(ATOM_WINDOW, 12);
    req.writeUInt32LE(1, 20); // one 32-bit value
    const reply = await this.#request(req);
    return reply[1] === 32 && reply.readUInt32LE(16) >= 1 ? reply.readUInt32LE(32) : undefined;
  }

  close(): void {
    this.#socket.destroy();
  }

  async #request(req: Buffer): Promise<Buffer> {
    this.#socket.write(req);
    for (;;) {
      this.#buffer = await read(this.#socket, this.#buffer, 32);
      const kind = this.#buffer[0]!;
      const size = kind === 1 ? 32 + this.#buffer.readUInt32LE(4) * 4 : 32;
      this.#buffer = await read(this.#socket, this.#buffer, size);
      const packet = this.#buffer.subarray(0, size);
      this.#buffer = this.#buffer.subarray(size);
      if (kind === 1) return packet;
      if (kind === 0) throw new Error(`X error ${packet[1]} on request ${packet[10]}`);
      // an event (a MappingNotify, say): not ours to read
    }
  }
}

/** Read from `socket` until `have` holds at least `n` bytes (bounded by the socket's lifetime). */
function read(socket: Socket, have: Buffer, n: number): Promise<Buffer> {
  if (have.length >= n) return Promise.resolve(have);
  return new Promise((resolve, reject) => {
    let buf = have;
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length >= n) { done(); resolve(buf); }
    };
    const onClose = () => { done(); reject(new Error('the X server closed the connection')); };
    const onError = (err: Error) => { done(); reject(err); };
    const done = () => { socket.off('data', onData); socket.off('close', onClose); socket.off('error', onError); };
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', onError);
  });
}
