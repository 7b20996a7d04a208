/** Get file: straight through the channel, which enforces max_bytes and answers NOT_FOUND. */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';

export async function getFile(_rt: AndroidRuntime, ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  const channel = await ctx.channel();
  throwIfCancelled(ctx.signal, 'get_file');
  return channel.getFile(input.path, { maxBytes: input.max_bytes });
}
