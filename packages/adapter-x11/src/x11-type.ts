/**
 * Type: `xdotool type --delay D -- TEXT`, the text one argv element (never a shell word), in a
 * UTF-8 locale (xdotool stops at the first non-ASCII character under LC_ALL=C). Long text is split
 * into chunks typed one after another, so each guest command stays short and bounded; xdotool types
 * "\n" as Return and "\t" as Tab. Characters missing from the keymap are typed by remapping a spare
 * keycode, which needs the delay: a zero delay can reorder or lose them in slow clients.
 */
import type { AdapterContext } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';

/** Split into chunks of at most `size` code points, never inside a surrogate pair. */
export function chunkText(text: string, size: number): string[] {
  const points = [...text];
  const chunks: string[] = [];
  for (let i = 0; i < points.length; i += size) chunks.push(points.slice(i, i + size).join(''));
  return chunks;
}

export async function type(rt: X11Runtime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const text = input.text.replace(/\r\n?/g, '\n');
  const guest = await rt.guest(ctx);
  const delay = rt.options.type_delay_ms;
  for (const chunk of chunkText(text, rt.options.type_chunk_chars)) {
    const budget = [...chunk].length * (delay + 5) * 2 + 10_000;
    await guest.run(['xdotool', 'type', '--delay', String(delay), '--', chunk], { timeoutMs: Math.max(budget, rt.options.command_timeout_ms) });
  }
}
