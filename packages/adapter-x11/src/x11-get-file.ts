/**
 * Get file: straight through the channel, which enforces max_bytes and reports NOT_FOUND; the
 * path is absolute (core resolved it).
 */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import type { X11Runtime } from './runtime.ts';

export async function getFile(_rt: X11Runtime, ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  const channel = await ctx.channel();
  // GuestChannel.getFile takes no signal: a cancelled call only stops before it starts.
  throwIfCancelled(ctx.signal, 'get_file');
  return channel.getFile(input.path, { maxBytes: input.max_bytes });
}
