/** type: the whole text is mapped (or refused) before the first key goes out. */
import type { AdapterContext } from '@vmhub/core';
import { sendStrokes } from './console-input.ts';
import { textStrokes } from './console-keymap.ts';
import type { ConsoleState } from './console-session.ts';

export async function type(s: ConsoleState, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const strokes = textStrokes(input.text);
  await sendStrokes(await ctx.console(), strokes, s.keyDelayMs, ctx.signal);
}
