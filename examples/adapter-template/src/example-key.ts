/**
 * key: chords like "ctrl+shift+t", "Return" or "F5", several separated by spaces — exactly the
 * syntax xdotool reads. xdotool skips a key name it does not know with a warning on stderr and
 * presses the rest, so that warning becomes INVALID_REQUEST: the agent must learn its key was not
 * pressed. (A stricter adapter checks names against a keysym table first, as adapter-x11 does.)
 */
import type { AdapterContext } from '@vmhub/core';
import { exampleError } from './errors.ts';
import type { ExampleRuntime } from './runtime.ts';

export async function exampleKey(rt: ExampleRuntime, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const chords = input.keys.trim().split(/\s+/);
  const { stderr } = await (await rt.guest(ctx)).run(['xdotool', 'key', '--delay', '12', '--', ...chords]);
  const unknown = new Set([...stderr.toString('utf8').matchAll(/No such key name '([^']*)'/g)].map((m) => m[1]));
  if (unknown.size > 0) {
    throw exampleError('INVALID_REQUEST', `unknown key name ${[...unknown].map((k) => `"${k}"`).join(', ')} in "${input.keys}": use X keysym names such as Return, Tab, F5, ctrl+c`);
  }
}
