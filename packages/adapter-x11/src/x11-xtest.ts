/**
 * A resident X11 connection for input: XTEST FakeInput requests written straight to the guest's
 * X server over its unix socket, shared with the host by the provider (FramebufferSource
 * `x11_socket`). No process per action, in the guest or here: a click is a few 36-byte requests
 * and one round trip (GetInputFocus) that says the server has applied them, in order.
 *
 * Only what input needs of the core protocol (little-endian, no authentication: the golden's
 * Xvfb runs with -ac): connection setup (the root window, the keycode range), QueryExtension for
 * XTEST's opcode, GetKeyboardMapping and ChangeKeyboardMapping (keysym → keycode and level, and
 * spare keycodes bound to characters the keymap lacks: x11-xtest-keyboard.ts), and replies and
 * errors matched to their requests by sequence number. The keyboard mapping is read once and read
 * again after a MappingNotify (the server sends it to every client when anyone changes the map).
 */
import { connect, type Socket } from 'node:net';

const X_GET_INPUT_FOCUS = 43;
const X_QUERY_EXTENSION = 98;
const X_CHANGE_KEYBOARD_MAPPING = 100;
const X_GET_KEYBOARD_MAPPING = 101;
const MAPPING_NOTIFY = 34;
const MAPPING_KEYBOARD = 1;
const XTEST_FAKE_INPUT = 2;
export const KEY_PRESS = 2, KEY_RELEASE = 3, BUTTON_PRESS = 4, BUTTON_RELEASE = 5, MOTION_NOTIFY = 6;

const pad4 = (n: number) => (4 - (n % 4)) % 4;

/** Where a keysym is on the keyboard: its keycode, and whether Shift selects it (level 2). */
export interface KeyPlace { keycode: number; shift: boolean }

/** The server's core keyboard map: `per` keysyms for each keycode from `min`. */
export interface KeyboardMap { min: number; per: number; syms: Uint32Array }

interface Pending {
  seq: number;
  resolve: (reply: Buffer) => void;
  reject: (err: Error) => void;
}

export class XTestConnection {
  readonly #socket: Socket;
  readonly #root: number;
  readonly #minKeycode: number;
  readonly #maxKeycode: number;
  readonly #opcode: number;
  #seq: number;
  #pending: Pending[] = [];
  #queue: Buffer[] = [];
  #buffer: Buffer = Buffer.alloc(0);
  #closed: Error | undefined;
  #map: Promise<KeyboardMap> | undefined;

  private constructor(socket: Socket, setup: { root: number; minKeycode: number; maxKeycode: number }, opcode: number, seq: number, rest: Buffer) {
    this.#socket = socket;
    this.#root = setup.root;
    this.#minKeycode = setup.minKeycode;
    this.#maxKeycode = setup.maxKeycode;
    this.#opcode = opcode;
    this.#seq = seq;
    this.#buffer = rest;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    const fail = (err: Error) => this.#fail(err);
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the X server closed the connection')));
    this.#onData(Buffer.alloc(0));
  }

  /** Connect, set up, and find XTEST; rejects (and closes) when the server has no XTEST or refuses us. */
  static async open(path: string, timeoutMs = 3000): Promise<XTestConnection> {
    const socket = connect(path);
    socket.setNoDelay?.(true);
    const timer = setTimeout(() => socket.destroy(new Error(`no answer from the X server at ${path} within ${timeoutMs} ms`)), timeoutMs);
    try {
      await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
      const header = Buffer.alloc(12);
      header[0] = 0x6c; // 'l': little-endian
      header.writeUInt16LE(11, 2);
      socket.write(header);
      let data = await readAtLeast(socket, Buffer.alloc(0), 8);
      const extra = data.readUInt16LE(6) * 4;
      data = await readAtLeast(socket, data, 8 + extra);
      if (data[0] !== 1) {
        const reason = data.subarray(8, 8 + data[1]!).toString('latin1');
        throw new Error(`the X server at ${path} refused the connection${reason ? `: ${reason}` : ''}`);
      }
      const vendorLength = data.readUInt16LE(24);
      const formats = data[29]!;
      const screens = 40 + vendorLength + pad4(vendorLength) + 8 * formats;
      const setup = { root: data.readUInt32LE(screens), minKeycode: data[34]!, maxKeycode: data[35]! };
      let rest = data.subarray(8 + extra);
      // QueryExtension "XTEST" (sequence 1).
      const name = Buffer.from('XTEST', 'latin1');
      const q = Buffer.alloc(8 + name.length + pad4(name.length));
      q[0] = X_QUERY_EXTENSION;
      q.writeUInt16LE(q.length / 4, 2);
      q.writeUInt16LE(name.length, 4);
      name.copy(q, 8);
      socket.write(q);
      rest = await readAtLeast(socket, rest, 32);
      if (rest[0] === 0) throw new Error(`the X server at ${path} answered QueryExtension with error ${rest[1]}`);
      if (!rest[8]) throw new Error(`the X server at ${path} has no XTEST extension`);
      const opcode = rest[9]!;
      socket.removeAllListeners('error');
      return new XTestConnection(socket, setup, opcode, 1, rest.subarray(32));
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

  /** Absolute pointer motion to screen (x, y). */
  motion(x: number, y: number): void {
    this.#fake(MOTION_NOTIFY, 0, x, y);
  }

  button(press: boolean, button: number): void {
    this.#fake(press ? BUTTON_PRESS : BUTTON_RELEASE, button, 0, 0);
  }

  key(press: boolean, keycode: number): void {
    this.#fake(press ? KEY_PRESS : KEY_RELEASE, keycode, 0, 0);
  }

  /** The server's keyboard map, read once and again after anyone changes it. */
  keyboardMap(): Promise<KeyboardMap> {
    if (!this.#map) {
      const count = this.#maxKeycode - this.#minKeycode + 1;
      const req = Buffer.alloc(8);
      req[0] = X_GET_KEYBOARD_MAPPING;
      req.writeUInt16LE(2, 2);
      req[4] = this.#minKeycode;
      req[5] = count;
      const map = this.#request(req).then((reply) => {
        const per = reply[1]!;
        const syms = new Uint32Array(count * per);
        for (let i = 0; i < syms.length; i++) syms[i] = reply.readUInt32LE(32 + i * 4);
        return { min: this.#minKeycode, per, syms };
      });
      map.catch(() => { if (this.#map === map) this.#map = undefined; });
      this.#map = map;
    }
    return this.#map;
  }

  /**
   * Where `keysym` is: the first keycode carrying it at level 1 (no modifier), else at level 2
   * (with Shift); undefined when it is at neither (other groups and levels need modifiers whose
   * keys vary: the caller binds a spare keycode instead).
   */
  async placeOf(keysym: number): Promise<KeyPlace | undefined> {
    const { min, per, syms } = await this.keyboardMap();
    for (const level of [0, 1]) {
      if (level >= per) break;
      for (let k = 0; k * per < syms.length; k++) if (syms[k * per + level] === keysym) return { keycode: min + k, shift: level === 1 };
    }
    return undefined;
  }

  /** The keycode whose level-1 keysym is `keysym`, or undefined (modifiers: Control_L, Shift_L, …). */
  async keycodeOf(keysym: number): Promise<number | undefined> {
    const place = await this.placeOf(keysym);
    return place && !place.shift ? place.keycode : undefined;
  }

  /**
   * Bind `keysym` to every level of the first four of `keycode` (0 unbinds it): ChangeKeyboardMapping,
   * kept in this connection's copy of the map at once. Not synced: the caller's next round trip is.
   */
  async bindKeycode(keycode: number, keysym: number): Promise<void> {
    const map = await this.keyboardMap();
    const { min, per, syms } = map;
    if (keycode < min || keycode > this.#maxKeycode) throw new Error(`keycode ${keycode} is outside ${min}..${this.#maxKeycode}`);
    const req = Buffer.alloc(8 + per * 4);
    req[0] = X_CHANGE_KEYBOARD_MAPPING;
    req[1] = 1;
    req.writeUInt16LE(2 + per, 2);
    req[4] = keycode;
    req[5] = per;
    for (let j = 0; j < per; j++) {
      const sym = j < 4 ? keysym : 0;
      req.writeUInt32LE(sym, 8 + j * 4);
      syms[(keycode - min) * per + j] = sym;
    }
    if (this.#closed) throw this.#closed;
    this.#send(req);
  }

  /** A round trip: resolves once the server has handled every request sent before it (rejects on an X error in between). */
  async sync(): Promise<void> {
    const req = Buffer.alloc(4);
    req[0] = X_GET_INPUT_FOCUS;
    req.writeUInt16LE(1, 2);
    await this.#request(req);
  }

  close(): void {
    this.#fail(new Error('the XTEST connection was closed'));
    this.#socket.destroy();
  }

  #fake(type: number, detail: number, x: number, y: number): void {
    if (this.#closed) throw this.#closed;
    const req = Buffer.alloc(36);
    req[0] = this.#opcode;
    req[1] = XTEST_FAKE_INPUT;
    req.writeUInt16LE(9, 2);
    req[4] = type;
    req[5] = detail;
    req.writeUInt32LE(this.#root, 12);
    req.writeInt16LE(x, 24);
    req.writeInt16LE(y, 26);
    this.#send(req);
  }

  /**
   * Queue a request; the queue goes out in one write when the current task's synchronous work is
   * done (a click's motion, presses, releases and round trip: one syscall, not four). Order is kept:
   * every request goes through this queue.
   */
  #send(req: Buffer): number {
    this.#seq = (this.#seq + 1) & 0xffff;
    this.#queue.push(req);
    if (this.#queue.length === 1) queueMicrotask(() => this.#flush());
    return this.#seq;
  }

  #flush(): void {
    const out = this.#queue.length === 1 ? this.#queue[0]! : Buffer.concat(this.#queue);
    this.#queue = [];
    if (!this.#closed) this.#socket.write(out);
  }

  #request(req: Buffer): Promise<Buffer> {
    if (this.#closed) return Promise.reject(this.#closed);
    const seq = this.#send(req);
    return new Promise((resolve, reject) => this.#pending.push({ seq, resolve, reject }));
  }

  #onData(chunk: Buffer): void {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    while (this.#buffer.length >= 32) {
      const kind = this.#buffer[0]!;
      const size = kind === 1 ? 32 + this.#buffer.readUInt32LE(4) * 4 : 32;
      if (this.#buffer.length < size) return;
      const packet = this.#buffer.subarray(0, size);
      this.#buffer = this.#buffer.subarray(size);
      if (kind !== 0 && kind !== 1) {
        // Events: none is asked for, but MappingNotify goes to every client: our copy is stale.
        if ((kind & 0x7f) === MAPPING_NOTIFY && packet[4] === MAPPING_KEYBOARD) this.#map = undefined;
        continue;
      }
      const seq = packet.readUInt16LE(2);
      // Requests without replies (FakeInput) that failed report an error with their sequence:
      // it fails the next round trip waiting, which is the one covering that request.
      const i = this.#pending.findIndex((p) => p.seq === seq);
      if (kind === 1 && i >= 0) {
        const [p] = this.#pending.splice(i, 1);
        p!.resolve(Buffer.from(packet));
      } else if (kind === 0) {
        const err = new Error(`X error ${packet[1]} on request ${packet[10]}.${packet.readUInt16LE(8)} (sequence ${seq})`);
        const waiting = i >= 0 ? this.#pending.splice(i, 1) : this.#pending.splice(0, 1);
        waiting[0]?.reject(err);
      }
    }
  }

  #fail(err: Error): void {
    if (this.#closed) return;
    this.#closed = err;
    for (const p of this.#pending.splice(0)) p.reject(err);
  }
}

/** Read from `socket` until `have` holds at least `n` bytes. */
function readAtLeast(socket: Socket, have: Buffer, n: number): Promise<Buffer> {
  if (have.length >= n) return Promise.resolve(have);
  return new Promise((resolve, reject) => {
    let buf = have;
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length >= n) { cleanup(); resolve(buf); }
    };
    const onEnd = () => { cleanup(); reject(new Error('the X server closed the connection during setup')); };
    const onError = (err: Error) => { cleanup(); reject(err); };
    const cleanup = () => { socket.off('data', onData); socket.off('close', onEnd); socket.off('error', onError); };
    socket.on('data', onData);
    socket.on('close', onEnd);
    socket.on('error', onError);
  });
}
