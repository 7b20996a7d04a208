/** Put file: straight through the channel (adb sync on the adb channel); the path is absolute. */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';

export async function putFile(_rt: AndroidRuntime, ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void> {
  const channel = await ctx.channel();
  // GuestChannel.putFile takes no signal: a cancelled call only stops before it starts.
  throwIfCancelled(ctx.signal, 'put_file');
  await channel.putFile(input.path, input.data, { mode: input.mode });
}
