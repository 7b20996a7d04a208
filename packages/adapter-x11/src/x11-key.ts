/** Key chords: validated against the keysym table first, then one `xdotool key` for all chords. */
import type { AdapterContext } from '@vmhub/core';
import { parseKeys } from './keysyms.ts';
import type { X11Runtime } from './runtime.ts';

export async function key(rt: X11Runtime, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const chords = parseKeys(input.keys);
  const guest = await rt.guest(ctx);
  // The X server applies XTest events in order, so one chord needs no pause (xdotool would sleep
  // the delay after every press and release); several get a short gap for slow clients.
  await guest.run(['xdotool', 'key', '--delay', chords.length > 1 ? '8' : '0', ...chords]);
}
