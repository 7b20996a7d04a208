/** type: the whole text is mapped (or refused) before the first key goes out. */
import type { AdapterContext } from '@vmhub/core';
import { sendStrokes } from './input.ts';
import { textStrokes } from './keys.ts';
import type { ConsoleState } from './runtime.ts';

export async function type(s: ConsoleState, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const strokes = textStrokes(input.text);
  await sendStrokes(await ctx.console(), strokes, s.keyDelayMs, ctx.signal);
}
