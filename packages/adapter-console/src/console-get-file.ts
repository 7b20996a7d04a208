/** get_file through the guest channel; the channel enforces max_bytes and NOT_FOUND. `path` is absolute and normalised (core resolved it). */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import { guestChannel } from './guest.ts';

export async function getFile(ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  const ch = await guestChannel(ctx);
  // GuestChannel.getFile takes no signal: a cancelled call only stops before it starts.
  throwIfCancelled(ctx.signal, 'get_file');
  return ch.getFile(input.path, { maxBytes: input.max_bytes });
}
