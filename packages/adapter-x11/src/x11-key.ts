/** Key chords: validated against the keysym table first, then one `xdotool key` for all chords. */
import type { AdapterContext } from '@vmhub/core';
import { parseKeys } from './keysyms.ts';
import type { X11Runtime } from './runtime.ts';

export async function key(rt: X11Runtime, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const chords = parseKeys(input.keys);
  const guest = await rt.guest(ctx);
  await guest.run(['xdotool', 'key', '--delay', '8', ...chords]);
}
