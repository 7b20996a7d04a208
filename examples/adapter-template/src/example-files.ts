/**
 * put_file / get_file through the channel. Paths arrive absolute and checked (the router
 * resolves them and refuses ".."); the channel enforces size caps and answers NOT_FOUND.
 */
import { VmhubError, type AdapterContext } from '@vmhub/core';

export async function examplePutFile(ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void> {
  const channel = await ctx.channel();
  await channel.putFile(input.path, input.data, input.mode !== undefined ? { mode: input.mode } : {});
}

export async function exampleGetFile(ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  const channel = await ctx.channel();
  const data = await channel.getFile(input.path, { maxBytes: input.max_bytes });
  // A channel that ignores maxBytes must not push a huge file through to the agent.
  if (data.length > input.max_bytes) throw new VmhubError('INVALID_REQUEST', `[vmhub] [adapter-example] ${input.path} is ${data.length} bytes, over max_bytes ${input.max_bytes}`);
  return data;
}
