/**
 * get_file through the channel. The path is absolute and normalised (core resolved it); the
 * channel answers NOT_FOUND for a missing file and refuses one over maxBytes, and core refuses an
 * oversized result again, so there is nothing to check here.
 */
import type { AdapterContext } from '@vmhub/core';
import type { ExampleRuntime } from './runtime.ts';

export async function exampleGetFile(_rt: ExampleRuntime, ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  const channel = await ctx.channel();
  return channel.getFile(input.path, { maxBytes: input.max_bytes });
}
