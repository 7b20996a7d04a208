/** Paste: the whole text (newlines included) onto the clipboard, then KEYCODE_PASTE (clipboard.ts). */
import type { AdapterContext } from '@vmhub/core';
import { setClipboard } from './clipboard.ts';
import type { AndroidRuntime } from './runtime.ts';

export async function paste(rt: AndroidRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  await setClipboard(rt, ctx, input.text, true);
}
