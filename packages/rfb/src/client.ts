/**
 * RfbClient: one RFB connection after its handshake. It asks for 32-bit true colour, offers
 * ZRLE, CopyRect and Raw with the DesktopSize and LastRect pseudo-encodings, requests a full
 * frame, and from then on keeps one incremental FramebufferUpdateRequest outstanding, so the
 * framebuffer follows the screen and a screenshot is a copy of memory (RFC 6143 §7.5.3: an
 * incremental request is answered when something changed).
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { ByteReader } from './byte-reader.ts';
import { RfbError } from './errors.ts';
import { Framebuffer } from './framebuffer.ts';
import type { HandshakeResult, RfbProtocol, RfbSecurity } from './handshake.ts';
import { keysymForChar, parseCombo } from './keysyms.ts';
import { decodeZrle, StreamInflater } from './zrle.ts';

export const ENCODINGS = {
  raw: 0, copyRect: 1, zrle: 16,
  desktopSize: -223, lastRect: -224, cursor: -239, xCursor: -240, pointerPos: -232, extendedDesktopSize: -308,
} as const;

export type RfbEncodingName = 'zrle' | 'copyrect' | 'raw';
const BY_NAME: Record<RfbEncodingName, number> = { zrle: ENCODINGS.zrle, copyrect: ENCODINGS.copyRect, raw: ENCODINGS.raw };

/**
 * What the client offers, most preferred first, then the pseudo-encodings. Cursor shapes are not
 * asked for: the server draws the cursor into the picture, which is what a screenshot should show.
 */
export function offeredEncodings(names: readonly RfbEncodingName[] = ['zrle', 'copyrect', 'raw']): number[] {
  const list = names.map((n) => BY_NAME[n]);
  if (!list.includes(ENCODINGS.raw)) list.push(ENCODINGS.raw); // every server may fall back to Raw
  return [...list, ENCODINGS.desktopSize, ENCODINGS.lastRect];
}

export type MouseButton = 'left' | 'middle' | 'right';
const BUTTON_MASK: Record<MouseButton, number> = { left: 1, middle: 2, right: 4 };
const SHIFT_L = 0xffe1;
const US_SHIFTED = /^[A-Z~!@#$%^&*()_+{}|:"<>?]$/;
const SCROLL_MASK = { up: 8, down: 16, left: 32, right: 64 } as const;

export interface RfbScreenshot {
  data: Buffer;
  width: number;
  height: number;
  format: 'rgba';
  /** false when `fresh` was asked for and no full update arrived within the bound (the frame is the latest one held). */
  fresh: boolean;
}

export interface RfbClientEvents {
  resize: [{ width: number; height: number }];
  update: [{ rects: number }];
  bell: [];
  clipboard: [string];
  error: [RfbError];
  close: [RfbError | undefined];
}

interface Waiter { area: number; done: () => void }

export class RfbClient extends EventEmitter<RfbClientEvents> {
  readonly protocol: RfbProtocol;
  readonly security: RfbSecurity;
  readonly name: string;
  /** The encodings the client offered (informational). */
  readonly encodings: readonly number[];
  private readonly fb: Framebuffer;
  private readonly inflater = new StreamInflater();
  private closedWith: RfbError | undefined;
  private closeEmitted = false;
  private closedByClient = false;
  private inUpdate = false;
  private firstFrame = false;
  private frameWaiters: Array<() => void> = [];
  private freshWaiters: Waiter[] = [];
  /** sync() callers: released by the first update that starts after their request and covers (0,0). */
  private syncWaiters: Array<{ armed: boolean; done: () => void }> = [];
  private readonly counts = { updates: 0, rects: {} as Record<number, number> };

  private readonly socket: Duplex;
  private readonly reader: ByteReader;

  constructor(socket: Duplex, reader: ByteReader, hs: HandshakeResult, encodings: readonly RfbEncodingName[] = ['zrle', 'copyrect', 'raw']) {
    super();
    this.encodings = offeredEncodings(encodings);
    this.socket = socket;
    this.reader = reader;
    this.protocol = hs.protocol;
    this.security = hs.security;
    this.name = hs.init.name;
    this.fb = new Framebuffer(hs.init.width, hs.init.height);
    socket.once('close', () => this.shutdown(new RfbError('CLOSED', 'the connection closed')));
    socket.on('error', () => undefined); // surfaced through the reader as CLOSED
    for (const m of [setPixelFormat(), setEncodings(this.encodings), updateRequest(false, 0, 0, this.fb.width, this.fb.height)]) this.send(m).catch(() => undefined);
    void this.loop();
  }

  get width(): number { return this.fb.width; }
  get height(): number { return this.fb.height; }
  get closed(): boolean { return this.closedWith !== undefined; }

  /** The live framebuffer (RGBA). It changes under you: copy what you keep, or use screenshot(). */
  framebuffer(): { width: number; height: number; data: Buffer } {
    return { width: this.fb.width, height: this.fb.height, data: this.fb.data };
  }

  /**
   * A copy of the screen. By default the framebuffer as it is now (waiting only for the first
   * full frame after connecting, and for an update being applied, so a copy never tears).
   * `fresh: true` asks the server for the whole screen and waits for it: what is on screen after
   * this call began. Bounded by timeoutMs (default 5000); on the bound it returns the latest frame
   * with `fresh: false` rather than fail.
   */
  async screenshot(options: { fresh?: boolean; timeoutMs?: number } = {}): Promise<RfbScreenshot> {
    this.assertOpen();
    const timeoutMs = options.timeoutMs ?? 5000;
    let fresh = true;
    if (options.fresh) {
      fresh = await this.bounded(timeoutMs, (done) => {
        this.freshWaiters.push({ area: 0, done });
        this.send(updateRequest(false, 0, 0, this.fb.width, this.fb.height)).catch(() => undefined);
      }, (done) => { this.freshWaiters = this.freshWaiters.filter((w) => w.done !== done); });
    } else if (!this.firstFrame || this.inUpdate) {
      const ok = await this.bounded(timeoutMs, (done) => this.frameWaiters.push(done), (done) => { this.frameWaiters = this.frameWaiters.filter((w) => w !== done); });
      if (!ok && !this.firstFrame) throw new RfbError('TIMEOUT', `no framebuffer update from the server within ${timeoutMs} ms`);
    }
    this.assertOpen();
    return { data: Buffer.from(this.fb.data), width: this.fb.width, height: this.fb.height, format: 'rgba', fresh };
  }

  /** How many updates arrived and how many rectangles of each encoding (tests check which encodings a server used). */
  stats(): { updates: number; rects: Record<number, number> } {
    return { updates: this.counts.updates, rects: { ...this.counts.rects } };
  }

  /**
   * Resolves once the server has read everything sent before it: RFB has no acknowledgement, but
   * a server handles messages in order, so the answer to a FramebufferUpdateRequest sent after the
   * input comes after that input was processed. It asks for the 1×1 rectangle at (0,0), not
   * incrementally, and waits for an update that started after the request and covers it. Resolves
   * false on the bound (default 3000 ms; QEMU answers on its display timer, 30 ms to 3 s).
   * Adapters call it at the end of type/key/click so the effect has reached the server before
   * they return.
   */
  sync(timeoutMs = 3000): Promise<boolean> {
    this.assertOpen();
    const waiter = { armed: false, done: () => undefined as void };
    return this.bounded(timeoutMs, (done) => {
      waiter.done = done;
      this.syncWaiters.push(waiter);
      this.send(updateRequest(false, 0, 0, 1, 1)).then(() => { waiter.armed = true; }, () => undefined);
    }, () => { this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter); });
  }

  /** Ask for an update (the client keeps one incremental request outstanding by itself). */
  requestUpdate(incremental = true): void {
    this.send(updateRequest(incremental, 0, 0, this.fb.width, this.fb.height)).catch(() => undefined);
  }

  /** A PointerEvent with this button mask (bit 0 left, 1 middle, 2 right, 3–6 wheel up/down/left/right). */
  pointer(x: number, y: number, buttons: number): Promise<void> {
    const px = clamp(Math.round(x), this.fb.width);
    const py = clamp(Math.round(y), this.fb.height);
    const b = Buffer.alloc(6);
    b[0] = 5; b[1] = buttons & 0xff; b.writeUInt16BE(px, 2); b.writeUInt16BE(py, 4);
    return this.send(b);
  }

  async click(x: number, y: number, options: { button?: MouseButton; count?: number } = {}): Promise<void> {
    const mask = BUTTON_MASK[options.button ?? 'left'];
    await this.pointer(x, y, 0);
    for (let i = 0; i < (options.count ?? 1); i++) {
      await this.pointer(x, y, mask);
      await this.pointer(x, y, 0);
    }
  }

  /** Press at `from`, move there in steps (so the server sees motion with the button held), release at `to`. */
  async drag(from: { x: number; y: number }, to: { x: number; y: number }, button: MouseButton = 'left'): Promise<void> {
    const mask = BUTTON_MASK[button];
    await this.pointer(from.x, from.y, 0);
    await this.pointer(from.x, from.y, mask);
    const steps = 8;
    for (let i = 1; i <= steps; i++) {
      await this.pointer(from.x + ((to.x - from.x) * i) / steps, from.y + ((to.y - from.y) * i) / steps, mask);
    }
    await this.pointer(to.x, to.y, 0);
  }

  /** Wheel notches: buttons 4–7 pressed and released `amount` times at (x, y). */
  async scroll(x: number, y: number, direction: 'up' | 'down' | 'left' | 'right', amount = 1): Promise<void> {
    const mask = SCROLL_MASK[direction];
    await this.pointer(x, y, 0);
    for (let i = 0; i < amount; i++) {
      await this.pointer(x, y, mask);
      await this.pointer(x, y, 0);
    }
  }

  keyDown(keysym: number): Promise<void> { return this.key(keysym, true); }
  keyUp(keysym: number): Promise<void> { return this.key(keysym, false); }
  async keyPress(keysym: number): Promise<void> {
    await this.key(keysym, true);
    await this.key(keysym, false);
  }

  /**
   * Each character as its own keysym (Latin-1 direct, other Unicode 0x01000000 + code point,
   * newline Return, tab Tab). Characters a US keyboard types with Shift (A–Z and
   * ~!@#$%^&*()_+{}|:"<>?) are sent inside Shift_L down/up, as a viewer on such a keyboard does:
   * QEMU maps a keysym to its key and adds no modifier ('>' arrives as '.' without it), while
   * x11vnc and Xvnc accept the keysym either way.
   */
  async typeText(text: string): Promise<void> {
    const keysyms = [...text.replace(/\r\n/g, '\n')].map((ch) => ({ k: keysymForChar(ch), shift: US_SHIFTED.test(ch) }));
    for (const { k, shift } of keysyms) {
      if (shift) await this.key(SHIFT_L, true);
      await this.keyPress(k);
      if (shift) await this.key(SHIFT_L, false);
    }
  }

  /** 'ctrl+alt+t': pressed in order, released in reverse. */
  async keyCombo(combo: string): Promise<void> {
    const keys = parseCombo(combo);
    for (const k of keys) await this.key(k, true);
    for (const k of [...keys].reverse()) await this.key(k, false);
  }

  /** ClientCutText: Latin-1 by the RFC; characters outside it become '?'. */
  setClipboard(text: string): Promise<void> {
    const latin1 = Buffer.from(text.replace(/[^\u0000-\u00ff]/gu, '?'), 'latin1');
    const head = Buffer.alloc(8);
    head[0] = 6; head.writeUInt32BE(latin1.length, 4);
    return this.send(Buffer.concat([head, latin1]));
  }

  /**
   * Close the connection (idempotent). Half-closes first and waits (at most 1 s) for the server
   * to close its side: a socket destroyed with unread updates in it can be reset, and a server
   * may then drop input it had not read yet (the last keys typed before close).
   */
  async close(): Promise<void> {
    if (this.closeEmitted) return;
    this.closedByClient ||= !this.closedWith;
    this.closedWith ??= new RfbError('CLOSED', 'the client closed the connection');
    if (!this.socket.destroyed) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((ok) => {
        this.socket.once('close', () => ok());
        timer = setTimeout(ok, 1000);
        this.socket.end();
      });
      clearTimeout(timer);
    }
    this.shutdown(this.closedWith);
  }

  private key(keysym: number, down: boolean): Promise<void> {
    const b = Buffer.alloc(8);
    b[0] = 4; b[1] = down ? 1 : 0; b.writeUInt32BE(keysym >>> 0, 4);
    return this.send(b);
  }

  private assertOpen(): void {
    if (this.closedWith) throw this.closedWith;
  }

  private send(b: Buffer): Promise<void> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise((ok, fail) => {
      this.socket.write(b, (err) => (err ? fail(new RfbError('CLOSED', `write failed: ${err.message}`, { cause: err })) : ok()));
    });
  }

  /** Resolves true when `arm`'s done() is called within ms, false on the bound or on close. */
  private bounded(ms: number, arm: (done: () => void) => void, disarm: (done: () => void) => void): Promise<boolean> {
    return new Promise((ok) => {
      let settled = false;
      const finish = (v: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.off('close', onClose);
        disarm(done);
        ok(v);
      };
      const done = () => finish(true);
      const onClose = () => finish(false);
      const timer = setTimeout(() => finish(false), ms);
      this.once('close', onClose);
      arm(done);
    });
  }

  private shutdown(err: RfbError): void {
    if (this.closeEmitted) return;
    this.closedWith ??= err;
    this.closeEmitted = true;
    this.reader.fail(this.closedWith);
    this.inflater.close();
    if (!this.socket.destroyed) this.socket.destroy();
    const reason = this.closedByClient ? undefined : this.closedWith;
    this.emit('close', reason);
  }

  private async loop(): Promise<void> {
    try {
      for (;;) {
        const type = await this.reader.u8();
        if (type === 0) await this.update();
        else if (type === 1) { // SetColourMapEntries: not used with true colour, consumed
          const h = await this.reader.read(5);
          await this.reader.read(h.readUInt16BE(3) * 6);
        } else if (type === 2) this.emit('bell');
        else if (type === 3) {
          await this.reader.read(3);
          this.emit('clipboard', await this.reader.string());
        } else throw new RfbError('PROTOCOL', `unknown server message type ${type}`);
      }
    } catch (err) {
      const e = err instanceof RfbError ? err : new RfbError('PROTOCOL', (err as Error).message, { cause: err });
      if (!this.closedWith && e.code !== 'CLOSED') {
        this.closedWith = e;
        if (this.listenerCount('error') > 0) this.emit('error', e);
      }
      this.shutdown(e);
    }
  }

  private async update(): Promise<void> {
    const r = this.reader;
    const count = (await r.read(3)).readUInt16BE(1);
    this.inUpdate = true;
    const syncing = this.syncWaiters.filter((w) => w.armed); // their request was written before this update began
    let origin = false;
    let area = 0;
    let resized = false;
    for (let i = 0; i < count; i++) {
      const h = await r.read(12);
      const x = h.readUInt16BE(0), y = h.readUInt16BE(2), w = h.readUInt16BE(4), hh = h.readUInt16BE(6);
      const enc = h.readInt32BE(8);
      this.counts.rects[enc] = (this.counts.rects[enc] ?? 0) + 1;
      if (x === 0 && y === 0 && w > 0 && hh > 0 && enc >= 0) origin = true;
      if (enc === ENCODINGS.raw) {
        this.fb.raw(x, y, w, hh, await r.read(w * hh * 4));
        area += w * hh;
      } else if (enc === ENCODINGS.copyRect) {
        const s = await r.read(4);
        this.fb.copyRect(x, y, w, hh, s.readUInt16BE(0), s.readUInt16BE(2));
        area += w * hh;
      } else if (enc === ENCODINGS.zrle) {
        const data = await r.read(await r.u32());
        decodeZrle(this.fb, x, y, w, hh, await this.inflater.inflate(data));
        area += w * hh;
      } else if (enc === ENCODINGS.desktopSize || enc === ENCODINGS.extendedDesktopSize) {
        if (enc === ENCODINGS.extendedDesktopSize) {
          const screens = (await r.read(4))[0];
          await r.read(screens * 16);
        }
        if (w !== this.fb.width || hh !== this.fb.height) {
          this.fb.resize(w, hh);
          resized = true;
          this.emit('resize', { width: w, height: hh });
        }
      } else if (enc === ENCODINGS.lastRect) {
        break;
      } else if (enc === ENCODINGS.cursor) {
        await r.read(w * hh * 4 + Math.ceil(w / 8) * hh);
      } else if (enc === ENCODINGS.xCursor) {
        if (w * hh > 0) await r.read(6 + 2 * Math.ceil(w / 8) * hh);
      } else if (enc === ENCODINGS.pointerPos) {
        // nothing follows
      } else {
        throw new RfbError('PROTOCOL', `the server sent encoding ${enc}, which this client did not offer`);
      }
    }
    this.inUpdate = false;
    this.counts.updates++;
    // After a resize the new framebuffer is black until the server sends it: ask for all of it.
    if (resized) this.send(updateRequest(false, 0, 0, this.fb.width, this.fb.height)).catch(() => undefined);
    else this.firstFrame = true;
    if (origin) for (const w of syncing) w.done();
    for (const w of this.freshWaiters) w.area += area;
    const total = this.fb.width * this.fb.height;
    for (const w of this.freshWaiters.filter((w) => w.area >= total)) w.done();
    if (this.firstFrame) for (const done of this.frameWaiters.splice(0)) done();
    this.emit('update', { rects: count });
    // Keep one incremental request outstanding. An empty update means the server answers at once
    // when nothing changed (most servers wait instead): pace those so they do not spin.
    if (count === 0) await new Promise((ok) => setTimeout(ok, 20));
    if (!this.closedWith) this.send(updateRequest(true, 0, 0, this.fb.width, this.fb.height)).catch(() => undefined);
  }
}

function clamp(v: number, size: number): number {
  return Math.max(0, Math.min(size - 1, v));
}

/** 32 bpp, depth 24, little-endian, true colour, max 255, shifts R 0, G 8, B 16: R, G, B, X in memory. */
function setPixelFormat(): Buffer {
  const b = Buffer.alloc(20);
  b[0] = 0;
  b[4] = 32; b[5] = 24; b[6] = 0; b[7] = 1;
  b.writeUInt16BE(255, 8); b.writeUInt16BE(255, 10); b.writeUInt16BE(255, 12);
  b[14] = 0; b[15] = 8; b[16] = 16;
  return b;
}

function setEncodings(list: readonly number[]): Buffer {
  const b = Buffer.alloc(4 + 4 * list.length);
  b[0] = 2; b.writeUInt16BE(list.length, 2);
  list.forEach((e, i) => b.writeInt32BE(e, 4 + 4 * i));
  return b;
}

function updateRequest(incremental: boolean, x: number, y: number, w: number, h: number): Buffer {
  const b = Buffer.alloc(10);
  b[0] = 3; b[1] = incremental ? 1 : 0;
  b.writeUInt16BE(x, 2); b.writeUInt16BE(y, 4); b.writeUInt16BE(w, 6); b.writeUInt16BE(h, 8);
  return b;
}
