/**
 * put_file through the channel. The path is absolute and normalised — core resolved it against
 * the guest home and refused ".." — so it goes to the channel as it is: no path handling here.
 */
import type { AdapterContext } from '@vmhub/core';
import type { ExampleRuntime } from './runtime.ts';

export async function examplePutFile(_rt: ExampleRuntime, ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void> {
  const channel = await ctx.channel();
  await channel.putFile(input.path, input.data, input.mode !== undefined ? { mode: input.mode } : {});
}
