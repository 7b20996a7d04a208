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
 * A probe's `check()` answers true, or a line saying what it saw, or `unusable` when the server
 * refuses this client (it wants a cookie: the golden's Xvfb runs with -ac, another may not) — the
 * caller then runs the probe in the guest as before. Between checks, `changed(ms)` waits at most
 * `ms` but returns at once when what the probe waits for may have happened: the socket directory
 * changed (the display's socket appeared), or a property of the root window changed (the window
 * manager announced itself; the probe keeps one connection that listens for PropertyNotify). So a
 * stage ends when its event happens, not at the next poll. Only the core protocol, little-endian,
 * no authentication.
 */
import { watch, type FSWatcher } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname } from 'node:path';

export type CheckResult = true | string | { unusable: string };

export interface HostProbe {
  check(): Promise<CheckResult>;
  /** Resolves after `ms`, or sooner when what the probe waits for may have changed. */
  changed(ms: number): Promise<void>;
  close(): void;
}

const X_CHANGE_WINDOW_ATTRIBUTES = 2;
const X_INTERN_ATOM = 16;
const X_GET_PROPERTY = 20;
const ATOM_WINDOW = 33;
const CW_EVENT_MASK = 0x800;
const PROPERTY_CHANGE_MASK = 0x400000;
const WM_CHECK = '_NET_SUPPORTING_WM_CHECK';

const pad4 = (n: number) => (4 - (n % 4)) % 4;

/** The host equivalent of a probe's argv (after $DISPLAY was filled in), when there is one. */
export function hostProbeFor(argv: string[], socketPath: string): HostProbe | undefined {
  if (argv[0] === 'xdpyinfo' && (argv.length === 1 || (argv.length === 3 && argv[1] === '-display'))) return new DisplayProbe(socketPath);
  if (argv.length === 2 && argv[0] === 'wmctrl' && argv[1] === '-m') return new WindowManagerProbe(socketPath);
  return undefined;
}

/** The display number of ":0" / ":0.0" / "unix:1"; undefined for a display that is not local. */
export function displayNumber(display: string): number | undefined {
  const m = /^(?:unix)?:(\d+)(?:\.\d+)?$/.exec(display);
  return m ? Number(m[1]) : undefined;
}

/** A wake-up for `changed()`: resolved by whichever event comes first, or the timer. */
class Wake {
  #resolve: (() => void) | undefined;
  /** An event came while nobody waited: the next wait returns at once. */
  #missed = false;
  fire(): void {
    if (this.#resolve) this.#resolve();
    else this.#missed = true;
  }
  wait(ms: number): Promise<void> {
    if (this.#missed) {
      this.#missed = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.#resolve = undefined; resolve(); }, ms);
      this.#resolve = () => { clearTimeout(timer); this.#resolve = undefined; resolve(); };
    });
  }
}

/** Setup answered = the display serves clients. Wakes when the socket directory changes. */
class DisplayProbe implements HostProbe {
  readonly #socket: string;
  readonly #wake = new Wake();
  #watcher: FSWatcher | undefined;

  constructor(socket: string) {
    this.#socket = socket;
    try {
      this.#watcher = watch(dirname(socket), () => this.#wake.fire());
      this.#watcher.on('error', () => this.#watcher?.close());
    } catch {
      // No watch (an odd filesystem): plain polling.
    }
  }

  async check(): Promise<CheckResult> {
    const x = await XClient.open(this.#socket).catch((err: Error) => err);
    if (x instanceof Error) return x instanceof Refused ? { unusable: x.message } : x.message;
    x.close();
    return true;
  }

  changed(ms: number): Promise<void> {
    return this.#wake.wait(ms);
  }

  close(): void {
    this.#watcher?.close();
  }
}

/**
 * The window manager runs: the root names a window carrying _NET_SUPPORTING_WM_CHECK. One
 * connection, kept between checks, listens for the root's PropertyNotify (selected before the
 * first look, so a change in between is not missed).
 */
class WindowManagerProbe implements HostProbe {
  readonly #socket: string;
  readonly #wake = new Wake();
  #x: XClient | undefined;

  constructor(socket: string) {
    this.#socket = socket;
  }

  async check(): Promise<CheckResult> {
    if (!this.#x || this.#x.closed) {
      const x = await XClient.open(this.#socket, () => this.#wake.fire()).catch((err: Error) => err);
      if (x instanceof Error) return x instanceof Refused ? { unusable: x.message } : x.message;
      this.#x = x;
      try {
        await x.selectRootEvents(PROPERTY_CHANGE_MASK);
      } catch (err) {
        this.close();
        return (err as Error).message;
      }
    }
    const x = this.#x;
    try {
      const atom = await x.internAtom(WM_CHECK);
      if (atom === 0) return `no ${WM_CHECK} atom yet: no EWMH window manager has started`;
      const child = await x.windowProperty(x.root, atom);
      if (child === undefined) return `the root window has no ${WM_CHECK}: the window manager has not started`;
      // A window manager that died leaves the property naming a window that is gone (BadWindow) or no longer carries it.
      const self = await x.windowProperty(child, atom).catch(() => undefined);
      if (self !== child) return `${WM_CHECK} names window 0x${child.toString(16)}, which does not carry it: the window manager is not running`;
      return true;
    } catch (err) {
      this.close();
      return (err as Error).message;
    }
  }

  changed(ms: number): Promise<void> {
    return this.#wake.wait(ms);
  }

  close(): void {
    this.#x?.close();
    this.#x = undefined;
  }
}

class Refused extends Error {}

interface Pending { resolve: (reply: Buffer) => void; reject: (err: Error) => void }

/**
 * A minimal X client: setup, then one request at a time, answered in order. Every byte the server
 * sends is read as it comes; events go to `onEvent`.
 */
class XClient {
  readonly root: number;
  readonly #socket: Socket;
  readonly #onEvent: (() => void) | undefined;
  #buffer: Buffer;
  #pending: Pending | undefined;
  #closed: Error | undefined;

  private constructor(socket: Socket, root: number, rest: Buffer, onEvent: (() => void) | undefined) {
    this.#socket = socket;
    this.root = root;
    this.#buffer = rest;
    this.#onEvent = onEvent;
    socket.on('data', (chunk: Buffer) => { this.#buffer = Buffer.concat([this.#buffer, chunk]); this.#drain(); });
    const fail = (err: Error) => {
      this.#closed ??= err;
      this.#pending?.reject(err);
      this.#pending = undefined;
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the X server closed the connection')));
  }

  /**
   * Connect and set up. A connection that never completes setup is destroyed after `timeoutMs`;
   * one that did lives until close(), each request bounded by `timeoutMs`.
   */
  static async open(path: string, onEvent?: () => void, timeoutMs = 2000): Promise<XClient> {
    const socket = connect(path);
    const timer = setTimeout(() => socket.destroy(new Error(`the X server at ${path} did not answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
      const header = Buffer.alloc(12);
      header[0] = 0x6c; // 'l': little-endian
      header.writeUInt16LE(11, 2);
      socket.write(header);
      let data = await readSetup(socket, Buffer.alloc(0), 8);
      const extra = data.readUInt16LE(6) * 4;
      data = await readSetup(socket, data, 8 + extra);
      if (data[0] !== 1) {
        const reason = data.subarray(8, 8 + data[1]!).toString('latin1').trim();
        throw new Refused(`the X server at ${path} refused a client without a cookie${reason ? `: ${reason}` : ''}`);
      }
      const vendorLength = data.readUInt16LE(24);
      const root = data.readUInt32LE(40 + vendorLength + pad4(vendorLength) + 8 * data[29]!);
      socket.removeAllListeners('error');
      return new XClient(socket, root, data.subarray(8 + extra), onEvent);
    } catch (err) {
      socket.destroy();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** Select `mask` events on the root window (ChangeWindowAttributes), confirmed by a round trip. */
  async selectRootEvents(mask: number): Promise<void> {
    const req = Buffer.alloc(16);
    req[0] = X_CHANGE_WINDOW_ATTRIBUTES;
    req.writeUInt16LE(4, 2);
    req.writeUInt32LE(this.root, 4);
    req.writeUInt32LE(CW_EVENT_MASK, 8);
    req.writeUInt32LE(mask, 12);
    this.#socket.write(req);
    await this.internAtom(WM_CHECK); // any request with a reply: errors of the one before come first
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
    this.#closed ??= new Error('closed');
    this.#socket.destroy();
  }

  #request(req: Buffer, timeoutMs = 2000): Promise<Buffer> {
    if (this.#closed) return Promise.reject(this.#closed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.#socket.destroy(new Error(`the X server did not answer within ${timeoutMs} ms`)), timeoutMs);
      this.#pending = {
        resolve: (reply) => { clearTimeout(timer); resolve(reply); },
        reject: (err) => { clearTimeout(timer); reject(err); },
      };
      this.#socket.write(req);
    });
  }

  /** Hand out every whole packet in the buffer: replies and errors to the request, events to onEvent. */
  #drain(): void {
    while (this.#buffer.length >= 32) {
      const kind = this.#buffer[0]!;
      const size = kind === 1 ? 32 + this.#buffer.readUInt32LE(4) * 4 : 32;
      if (this.#buffer.length < size) return;
      const packet = this.#buffer.subarray(0, size);
      this.#buffer = this.#buffer.subarray(size);
      const pending = this.#pending;
      if (kind === 1) { this.#pending = undefined; pending?.resolve(packet); }
      else if (kind === 0) { this.#pending = undefined; pending?.reject(new Error(`X error ${packet[1]} on request ${packet[10]}`)); }
      else this.#onEvent?.();
    }
  }
}

/** During setup only: read from `socket` until `have` holds at least `n` bytes. */
function readSetup(socket: Socket, have: Buffer, n: number): Promise<Buffer> {
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
