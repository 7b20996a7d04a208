/** type: the whole text is mapped (or refused) before the first key goes out. */
import type { AdapterContext } from '@vmhub/core';
import { sendStrokes } from './console-input.ts';
import { textStrokes } from './console-keymap.ts';
import type { ConsoleRuntime } from './console-runtime.ts';

export async function type(rt: ConsoleRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const strokes = textStrokes(input.text);
  await sendStrokes(await ctx.console(), strokes, rt.keyDelayMs, ctx.signal);
}
