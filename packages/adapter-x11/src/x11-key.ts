/**
 * Key chords, validated against the keysym table first: through the session's XTEST connection
 * when the provider shares the X socket (xtest-keyboard.ts), else one `xdotool key` for all
 * chords in the guest.
 */
import type { AdapterContext } from '@vmhub/core';
import { keysymOf, parseKeys } from './keys.ts';
import type { X11Runtime } from './runtime.ts';
import { keysThroughXTest } from './xtest-keyboard.ts';

export async function key(rt: X11Runtime, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const chords = parseKeys(input.keys);
  const xtest = await rt.xtest.connection(rt, ctx);
  if (xtest && await keysThroughXTest(xtest, chords.map((c) => c.split('+').map(keysymOf)), rt.xtest.bound, ctx.signal)) return;
  const guest = await rt.guest(ctx);
  // The X server applies XTest events in order, so one chord needs no pause (xdotool would sleep
  // the delay after every press and release); several get a short gap for slow clients.
  await guest.run(['xdotool', 'key', '--delay', chords.length > 1 ? '8' : '0', ...chords]);
}
