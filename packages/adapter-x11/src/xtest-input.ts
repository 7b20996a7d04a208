/**
 * Input through the session's resident XTEST connection (xtest.ts), when the provider shares
 * the guest X server's socket with this host: a click is motion, modifier presses, button
 * presses and releases, modifier releases and one round trip — no process anywhere. Without the
 * socket (another provider, a remote engine, `input_xtest: false`), or when it cannot be opened,
 * the session's clicks go through xdotool in the guest as before.
 *
 * Guarantees kept from the xdotool path: modifiers pressed for a click are released whatever
 * happens (a cancelled call between the clicks of a double click included), and the call returns
 * once the X server has applied every event, in order.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdapterContext, Modifier, MouseButton, Point } from '@vmhub/core';
import { keysymOf, MODIFIER_KEYSYMS } from './keys.ts';
import type { X11Runtime } from './runtime.ts';
import { displayOf } from './framebuffer.ts';
import { XTestConnection } from './xtest.ts';
import { unbindAll, type XTestBindings } from './xtest-keyboard.ts';

const BUTTON_NUMBERS: Readonly<Record<MouseButton, number>> = { left: 1, middle: 2, right: 3 };

export class XTestInput {
  #connection: Promise<XTestConnection | undefined> | undefined;
  #closed = false;
  /** Spare keycodes vm_type and vm_key bound through this session's connection (xtest-keyboard.ts). */
  readonly bound: XTestBindings = new Map();

  /** The open connection, made on first use; undefined when there is none to make. */
  async connection(rt: X11Runtime, ctx: AdapterContext): Promise<XTestConnection | undefined> {
    if (!rt.options.input_xtest || this.#closed) return undefined;
    this.#connection ??= (async () => {
      const socket = (await displayOf(rt, ctx))?.x11_socket;
      if (!socket) return undefined;
      try {
        return await XTestConnection.open(socket);
      } catch {
        return undefined; // e.g. an X server that wants authentication: xdotool in the guest has it
      }
    })();
    const c = await this.#connection;
    if (c?.closed) {
      // The X server went away (a restarted session, a lost machine): try again next time.
      this.#connection = undefined;
      return undefined;
    }
    return c;
  }

  /**
   * The machine was restored (restored.ts): close the connection without giving anything
   * back — the X server it reached is gone or is the snapshot's, whose keymap never had our
   * bindings — and forget the bindings. The next call opens a new connection.
   */
  async drop(): Promise<void> {
    const pending = this.#connection;
    this.#connection = undefined;
    this.bound.clear();
    const c = await pending?.catch(() => undefined);
    c?.close();
  }

  /**
   * End of the session: give back the keycodes it bound (bounded by `timeoutMs`; the machine may
   * be gone), then close the connection.
   */
  async close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    const pending = this.#connection;
    this.#connection = undefined;
    const c = await pending?.catch(() => undefined);
    if (!c) return;
    try {
      if (!c.closed && this.bound.size > 0) {
        await Promise.race([unbindAll(c, this.bound), sleep(timeoutMs)]);
      }
    } catch {
      // Best effort: a keycode left bound only shrinks the spare pool of a desktop that is going away.
    } finally {
      c.close();
    }
  }
}

/**
 * Click through XTEST; false when a modifier has no keycode in the server's keymap (the caller
 * then uses xdotool, which remaps one).
 */
export async function clickThroughXTest(x: XTestConnection, input: Point & { button: MouseButton; count: number; modifiers: Modifier[] }, delayMs: number, signal: AbortSignal): Promise<boolean> {
  const codes: number[] = [];
  for (const m of new Set(input.modifiers)) {
    const code = await x.keycodeOf(keysymOf(MODIFIER_KEYSYMS[m]));
    if (code === undefined) return false;
    codes.push(code);
  }
  const button = BUTTON_NUMBERS[input.button];
  const held: number[] = [];
  try {
    x.motion(input.x, input.y);
    for (const code of codes) { x.key(true, code); held.push(code); }
    for (let i = 0; i < input.count; i++) {
      if (i > 0) await sleep(delayMs, undefined, { signal });
      x.button(true, button);
      x.button(false, button);
    }
  } finally {
    if (!x.closed) for (const code of held.reverse()) x.key(false, code);
  }
  await x.sync();
  return true;
}

/** Wheel clicks at the point, 15 ms apart (xdotool's pace), through XTEST. */
export async function scrollThroughXTest(x: XTestConnection, input: Point & { button: number; amount: number }, signal: AbortSignal): Promise<void> {
  x.motion(input.x, input.y);
  for (let i = 0; i < input.amount; i++) {
    if (i > 0) await sleep(15, undefined, { signal });
    x.button(true, input.button);
    x.button(false, input.button);
  }
  await x.sync();
}

/**
 * Press at `from`, move in `steps` steps `stepDelayMs` apart, release at `to` (as dragArgv does
 * with xdotool); the button is released whatever happens once it was pressed.
 */
export async function dragThroughXTest(x: XTestConnection, input: { from: Point; to: Point; button: MouseButton }, steps: number, stepDelayMs: number, signal: AbortSignal): Promise<void> {
  const { from, to } = input;
  const button = BUTTON_NUMBERS[input.button];
  x.motion(from.x, from.y);
  x.button(true, button);
  try {
    await sleep(stepDelayMs, undefined, { signal });
    for (let i = 1; i < steps; i++) {
      x.motion(Math.round(from.x + ((to.x - from.x) * i) / steps), Math.round(from.y + ((to.y - from.y) * i) / steps));
      await sleep(stepDelayMs, undefined, { signal });
    }
    x.motion(to.x, to.y);
    await sleep(stepDelayMs, undefined, { signal });
  } finally {
    if (!x.closed) x.button(false, button);
  }
  await x.sync();
}
