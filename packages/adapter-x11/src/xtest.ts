/**
 * A resident X11 connection for input: XTEST FakeInput requests written straight to the guest's
 * X server over its unix socket, shared with the host by the provider (FramebufferSource
 * `x11_socket`). No process per action, in the guest or here: a click is a few 36-byte requests
 * sent in one write and one round trip (GetInputFocus) that says the server has applied them, in
 * order.
 *
 * The wire (setup, sequence numbers, replies, errors, events) is @vmhub/x11-client's; here is
 * what input needs on top: XTEST's opcode (QueryExtension), FakeInput, and the keyboard map —
 * GetKeyboardMapping and ChangeKeyboardMapping (keysym → keycode and level, and spare keycodes
 * bound to characters the keymap lacks: xtest-keyboard.ts). The map is read once and read
 * again after a MappingNotify (the server sends it to every client when anyone changes the map).
 */
import { MAPPING_NOTIFY, queryExtension, XConnection } from '@vmhub/x11-client';

const X_CHANGE_KEYBOARD_MAPPING = 100;
const X_GET_KEYBOARD_MAPPING = 101;
const MAPPING_KEYBOARD = 1;
const XTEST_FAKE_INPUT = 2;
/** Bound on a reply (a keyboard map, the round trip that ends an action). */
const REQUEST_TIMEOUT_MS = 5000;
export const KEY_PRESS = 2, KEY_RELEASE = 3, BUTTON_PRESS = 4, BUTTON_RELEASE = 5, MOTION_NOTIFY = 6;

/** Where a keysym is on the keyboard: its keycode, and whether Shift selects it (level 2). */
export interface KeyPlace { keycode: number; shift: boolean }

/** The server's core keyboard map: `per` keysyms for each keycode from `min`. */
export interface KeyboardMap { min: number; per: number; syms: Uint32Array }

export class XTestConnection {
  readonly #x: XConnection;
  readonly #opcode: number;
  #map: Promise<KeyboardMap> | undefined;

  private constructor(x: XConnection, opcode: number) {
    this.#x = x;
    this.#opcode = opcode;
  }

  /** Connect, set up, and find XTEST; rejects (and closes) when the server has no XTEST or refuses us. */
  static async open(path: string, timeoutMs = 3000): Promise<XTestConnection> {
    let self: XTestConnection | undefined;
    // A reply later than REQUEST_TIMEOUT_MS closes the connection (the X server is wedged or
    // stopped): the action fails, and the session's next input opens a new one.
    // MappingNotify goes to every client: our copy of the keyboard map is stale.
    const x = await XConnection.open(path, { timeoutMs, requestTimeoutMs: REQUEST_TIMEOUT_MS, onEvent: (e) => { if ((e[0]! & 0x7f) === MAPPING_NOTIFY && e[4] === MAPPING_KEYBOARD && self) self.#map = undefined; } });
    try {
      const opcode = await queryExtension(x, 'XTEST');
      if (opcode === undefined) throw new Error(`the X server at ${path} has no XTEST extension`);
      self = new XTestConnection(x, opcode);
      return self;
    } catch (err) {
      x.close();
      throw err;
    }
  }

  get closed(): boolean {
    return this.#x.closed;
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
      const count = this.#x.setup.maxKeycode - this.#x.setup.minKeycode + 1;
      const req = Buffer.alloc(8);
      req[0] = X_GET_KEYBOARD_MAPPING;
      req.writeUInt16LE(2, 2);
      req[4] = this.#x.setup.minKeycode;
      req[5] = count;
      const map = this.#x.request(req).then((reply) => {
        const per = reply[1]!;
        const syms = new Uint32Array(count * per);
        for (let i = 0; i < syms.length; i++) syms[i] = reply.readUInt32LE(32 + i * 4);
        return { min: this.#x.setup.minKeycode, per, syms };
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
    if (keycode < min || keycode > this.#x.setup.maxKeycode) throw new Error(`keycode ${keycode} is outside ${min}..${this.#x.setup.maxKeycode}`);
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
    this.#x.send(req);
  }

  /** A round trip: resolves once the server has handled every request sent before it (rejects on an X error in between). */
  sync(): Promise<void> {
    return this.#x.sync();
  }

  close(): void {
    this.#x.close();
  }

  #fake(type: number, detail: number, x: number, y: number): void {
    const req = Buffer.alloc(36);
    req[0] = this.#opcode;
    req[1] = XTEST_FAKE_INPUT;
    req.writeUInt16LE(9, 2);
    req[4] = type;
    req[5] = detail;
    req.writeUInt32LE(this.#x.setup.root, 12);
    req.writeInt16LE(x, 24);
    req.writeInt16LE(y, 26);
    this.#x.send(req);
  }
}
