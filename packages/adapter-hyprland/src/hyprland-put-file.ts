/** Put file: straight through the channel; the path is absolute (core resolved it). */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import type { HyprRuntime } from './runtime.ts';

export async function putFile(rt: HyprRuntime, ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void> {
  const channel = await ctx.channel();
  // GuestChannel.putFile takes no signal: a cancelled call only stops before it starts.
  throwIfCancelled(ctx.signal, 'put_file');
  await channel.putFile(input.path, input.data, { mode: input.mode, user: rt.options.user });
}
