/**
 * One X11 connection over a unix socket, speaking just the wire protocol: connection setup
 * (little-endian, no authentication — for servers that accept local clients without a cookie,
 * such as Xvfb -ac), requests written in order and batched per task (everything queued in one
 * synchronous run goes out in one write), replies and errors matched to their requests by
 * sequence number, and events handed to `onEvent` as they arrive. What a request means is the
 * caller's business: this file knows the setup block and the packet framing, nothing more.
 *
 * Used by adapter-x11 (XTEST input, keyboard mapping) and provider-docker (readiness asked over
 * the socket a container shares with the host).
 */
import { connect, type Socket } from 'node:net';

/** The server refused the connection (it wants a cookie this client does not send, or another reason it gives). */
export class XRefused extends Error {}

/** An X protocol error answering a request: its code, and the request's major and minor opcode. */
export class XProtocolError extends Error {
  readonly code: number;
  readonly major: number;
  readonly minor: number;
  constructor(code: number, major: number, minor: number, seq: number) {
    super(`X error ${code} on request ${major}.${minor} (sequence ${seq})`);
    this.code = code;
    this.major = major;
    this.minor = minor;
  }
}

/** What setup told about the server and its first screen. */
export interface XSetup {
  root: number;
  minKeycode: number;
  maxKeycode: number;
  vendor: string;
}

export interface XConnectionOptions {
  /** Bound on connecting and setup. Default 3000 ms. */
  timeoutMs?: number;
  /**
   * Bound on each request's reply (and sync's round trip): past it the connection is closed and
   * everything waiting fails with the reason — a server that stopped answering (stopped, wedged)
   * never leaves a caller waiting. Default 10000 ms.
   */
  requestTimeoutMs?: number;
  /** Every event the server sends (32 bytes; byte 0 is its code, high bit set if it was sent by SendEvent). */
  onEvent?: (event: Buffer) => void;
}

interface Pending {
  seq: number;
  resolve: (reply: Buffer) => void;
  reject: (err: Error) => void;
}

export const pad4 = (n: number): number => (4 - (n % 4)) % 4;

export class XConnection {
  readonly setup: XSetup;
  readonly #socket: Socket;
  readonly #onEvent: ((event: Buffer) => void) | undefined;
  readonly #requestTimeoutMs: number;
  #seq = 0;
  #pending: Pending[] = [];
  #queue: Buffer[] = [];
  #buffer: Buffer;
  #closed: Error | undefined;

  private constructor(socket: Socket, setup: XSetup, rest: Buffer, options: XConnectionOptions) {
    this.#socket = socket;
    this.setup = setup;
    this.#buffer = rest;
    this.#onEvent = options.onEvent;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
      this.#drain();
    });
    socket.on('error', (err) => this.#fail(err));
    socket.on('close', () => this.#fail(new Error('the X server closed the connection')));
    this.#drain();
  }

  /** Connect and set up; rejects (XRefused when the server says no) and closes on failure. */
  static async open(path: string, options: XConnectionOptions = {}): Promise<XConnection> {
    const timeoutMs = options.timeoutMs ?? 3000;
    const socket = connect(path);
    const timer = setTimeout(() => socket.destroy(new Error(`no answer from the X server at ${path} within ${timeoutMs} ms`)), timeoutMs);
    try {
      await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
      socket.setNoDelay?.(true);
      const header = Buffer.alloc(12);
      header[0] = 0x6c; // 'l': little-endian
      header.writeUInt16LE(11, 2);
      socket.write(header);
      let data = await readAtLeast(socket, Buffer.alloc(0), 8);
      const extra = data.readUInt16LE(6) * 4;
      data = await readAtLeast(socket, data, 8 + extra);
      if (data[0] !== 1) {
        const reason = data.subarray(8, 8 + data[1]!).toString('latin1').trim();
        throw new XRefused(`the X server at ${path} refused the connection${reason ? `: ${reason}` : ''}`);
      }
      const vendorLength = data.readUInt16LE(24);
      const formats = data[29]!;
      const screens = 40 + vendorLength + pad4(vendorLength) + 8 * formats;
      const setup: XSetup = {
        root: data.readUInt32LE(screens),
        minKeycode: data[34]!,
        maxKeycode: data[35]!,
        vendor: data.subarray(40, 40 + vendorLength).toString('latin1'),
      };
      socket.removeAllListeners('error');
      return new XConnection(socket, setup, data.subarray(8 + extra), options);
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

  /**
   * Queue a request that has no reply; returns its sequence number. An error it causes fails the
   * next request waiting for a reply (sync() is the usual one).
   */
  send(req: Buffer): number {
    if (this.#closed) throw this.#closed;
    this.#seq = (this.#seq + 1) & 0xffff;
    this.#queue.push(req);
    if (this.#queue.length === 1) queueMicrotask(() => this.#flush());
    return this.#seq;
  }

  /** Send a request that has a reply; resolves with the whole reply packet, rejects with its error (XProtocolError). */
  request(req: Buffer): Promise<Buffer> {
    if (this.#closed) return Promise.reject(this.#closed);
    const seq = this.send(req);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const err = new Error(`the X server did not answer request ${req[0]} within ${this.#requestTimeoutMs} ms: connection closed`);
        this.#fail(err);
        this.#socket.destroy();
      }, this.#requestTimeoutMs);
      const settle = <T>(fn: (v: T) => void) => (v: T) => { clearTimeout(timer); fn(v); };
      this.#pending.push({ seq, resolve: settle(resolve), reject: settle(reject) });
    });
  }

  /** A round trip (GetInputFocus): resolves once the server has handled every request sent before it. */
  async sync(): Promise<void> {
    const req = Buffer.alloc(4);
    req[0] = 43;
    req.writeUInt16LE(1, 2);
    await this.request(req);
  }

  close(): void {
    this.#fail(new Error('the X connection was closed'));
    this.#socket.destroy();
  }

  #flush(): void {
    const out = this.#queue.length === 1 ? this.#queue[0]! : Buffer.concat(this.#queue);
    this.#queue = [];
    if (!this.#closed) this.#socket.write(out);
  }

  #drain(): void {
    while (this.#buffer.length >= 32) {
      const kind = this.#buffer[0]!;
      const size = kind === 1 ? 32 + this.#buffer.readUInt32LE(4) * 4 : 32;
      if (this.#buffer.length < size) return;
      const packet = Buffer.from(this.#buffer.subarray(0, size));
      this.#buffer = this.#buffer.subarray(size);
      if (kind !== 0 && kind !== 1) {
        this.#onEvent?.(packet);
        continue;
      }
      const seq = packet.readUInt16LE(2);
      const i = this.#pending.findIndex((p) => p.seq === seq);
      if (kind === 1) {
        if (i >= 0) this.#pending.splice(i, 1)[0]!.resolve(packet);
        continue;
      }
      // An error: its own request's waiter, or (a request without a reply failed) the next one waiting.
      const err = new XProtocolError(packet[1]!, packet[10]!, packet.readUInt16LE(8), seq);
      const waiting = i >= 0 ? this.#pending.splice(i, 1) : this.#pending.splice(0, 1);
      waiting[0]?.reject(err);
    }
  }

  #fail(err: Error): void {
    if (this.#closed) return;
    this.#closed = err;
    this.#queue = [];
    for (const p of this.#pending.splice(0)) p.reject(err);
  }
}

/** During setup: read from `socket` until `have` holds at least `n` bytes. */
function readAtLeast(socket: Socket, have: Buffer, n: number): Promise<Buffer> {
  if (have.length >= n) return Promise.resolve(have);
  return new Promise((resolve, reject) => {
    let buf = have;
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length >= n) { done(); resolve(buf); }
    };
    const onClose = () => { done(); reject(new Error('the X server closed the connection during setup')); };
    const onError = (err: Error) => { done(); reject(err); };
    const done = () => { socket.off('data', onData); socket.off('close', onClose); socket.off('error', onError); };
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', onError);
  });
}
