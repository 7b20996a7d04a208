/**
 * Input through the session's resident XTEST connection (x11-xtest.ts), when the provider shares
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
import type { X11Runtime } from './runtime.ts';
import { displayOf } from './x11-framebuffer.ts';
import { XTestConnection } from './x11-xtest.ts';

/** X keysyms of the modifiers (keysymdef.h). */
const MODIFIER_KEYSYMS: Readonly<Record<Modifier, number>> = { ctrl: 0xffe3, shift: 0xffe1, alt: 0xffe9, super: 0xffeb };
const BUTTON_NUMBERS: Readonly<Record<MouseButton, number>> = { left: 1, middle: 2, right: 3 };

export class XTestInput {
  #connection: Promise<XTestConnection | undefined> | undefined;
  #closed = false;

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

  close(): void {
    this.#closed = true;
    void this.#connection?.then((c) => c?.close());
    this.#connection = undefined;
  }
}

/**
 * Click through XTEST; false when a modifier has no keycode in the server's keymap (the caller
 * then uses xdotool, which remaps one).
 */
export async function clickThroughXTest(x: XTestConnection, input: Point & { button: MouseButton; count: number; modifiers: Modifier[] }, delayMs: number, signal: AbortSignal): Promise<boolean> {
  const codes: number[] = [];
  for (const m of new Set(input.modifiers)) {
    const code = await x.keycodeOf(MODIFIER_KEYSYMS[m]);
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
