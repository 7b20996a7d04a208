/** key: chords like `ctrl+alt+Delete`, several separated by spaces; all parsed before any is sent. */
import type { AdapterContext } from '@vmhub/core';
import { sendStrokes } from './input.ts';
import { parseKeys } from './keys.ts';
import type { ConsoleState } from './runtime.ts';

export async function key(s: ConsoleState, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const strokes = parseKeys(input.keys);
  await sendStrokes(await ctx.console(), strokes, s.keyDelayMs, ctx.signal);
}
