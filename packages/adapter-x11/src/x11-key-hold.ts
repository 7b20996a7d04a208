/**
 * vm_key {action: "down" | "up"} (capability key_hold): keys held across calls, for shift-click
 * and ctrl-drag. "down" presses every key of `keys` in order and leaves it down; "up" releases
 * them in reverse order. Through the session's XTEST connection when the provider shares the X
 * socket (a level-2 symbol is held with Shift, as vm_key presses it); else `xdotool keydown` /
 * `keyup` in the guest.
 *
 * The session remembers what it holds (runtime `held`: keysym name → keycodes pressed) and lets
 * go of it when the session ends (adapter.ts dispose) or a person takes over in the live view
 * (releaseHeld: every key and button the X server holds, release-input.ts, since the person's
 * server process may not be the one that pressed them). "up" of a key not held sends its release
 * anyway: harmless, and an agent can always recover.
 *
 * A key the keyboard map has no keycode for cannot be held (binding a spare keycode for the length
 * of a hold would race every other client's map): INVALID_REQUEST, nothing pressed.
 */
import type { AdapterContext } from '@vmhub/core';
import { x11Error } from './errors.ts';
import { keysymOf, parseKeys } from './keys.ts';
import { releaseInput } from './release-input.ts';
import type { X11Runtime } from './runtime.ts';

const SHIFT_L = 'Shift_L';

export async function keyHold(rt: X11Runtime, ctx: AdapterContext, input: { keys: string; action: 'down' | 'up' }): Promise<void> {
  const names = parseKeys(input.keys).flatMap((chord) => chord.split('+'));
  const xtest = await rt.xtest.connection(rt, ctx);
  if (xtest) {
    const shift = await xtest.keycodeOf(keysymOf(SHIFT_L));
    const plan: [string, number[]][] = [];
    for (const name of names) {
      const place = await xtest.placeOf(keysymOf(name));
      if (!place || (place.shift && shift === undefined)) {
        throw x11Error('INVALID_REQUEST', `vm_key: "${name}" has no key on this keyboard map, so it cannot be held (nothing was pressed); press it with vm_key without action, or type it with vm_type`, { details: { key: name } });
      }
      plan.push([name, place.shift ? [shift!, place.keycode] : [place.keycode]]);
    }
    if (input.action === 'down') {
      for (const [name, codes] of plan) {
        if (rt.held.has(name)) continue;
        for (const code of codes) xtest.key(true, code);
        rt.held.set(name, codes);
      }
    } else {
      for (const [name, codes] of plan.reverse()) {
        for (const code of [...(rt.held.get(name) ?? codes)].reverse()) xtest.key(false, code);
        rt.held.delete(name);
      }
    }
    await xtest.sync();
    return;
  }
  const guest = await rt.guest(ctx);
  if (input.action === 'down') {
    await guest.run(['xdotool', 'keydown', ...names]);
    for (const name of names) rt.held.set(name, []);
  } else {
    await guest.run(['xdotool', 'keyup', ...[...names].reverse()]);
    for (const name of names) rt.held.delete(name);
  }
}

/**
 * Let go of what the session holds: through XTEST the keycodes it pressed; otherwise (or when
 * the connection is gone) every key and button the X server holds, by the release script.
 * Best effort, bounded, never throws: used at the session's end.
 */
export async function releaseHeldKeys(rt: X11Runtime, ctx: AdapterContext): Promise<void> {
  if (rt.held.size === 0) return;
  const held = [...rt.held.values()].reverse();
  rt.held.clear();
  try {
    const xtest = await rt.xtest.connection(rt, ctx);
    if (xtest && held.every((codes) => codes.length > 0)) {
      for (const codes of held) for (const code of [...codes].reverse()) xtest.key(false, code);
      await xtest.sync();
      return;
    }
    await releaseInput(await rt.guest(ctx));
  } catch {
    // The machine may be gone with the lease; nothing more to do.
  }
}

/**
 * A person takes over (AdapterSession.releaseHeld): every key and pointer button the X server
 * holds is released, whoever pressed it — the agent's session may live in another server process.
 */
export async function releaseHeld(rt: X11Runtime, ctx: AdapterContext): Promise<void> {
  rt.held.clear();
  try {
    await releaseInput(await rt.guest(ctx));
  } catch {
    // Best effort: the person sees the screen and can press the key themselves.
  }
}
