/** get_file through the guest channel; the channel enforces max_bytes and NOT_FOUND. */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './cancel.ts';
import { guestChannel, guestPath } from './guest.ts';

export async function getFile(ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  const ch = await guestChannel(ctx);
  // GuestChannel.getFile takes no signal: a cancelled call only stops before it starts.
  throwIfCancelled(ctx.signal, 'get_file');
  return ch.getFile(guestPath(ch, input.path, 'path'), { maxBytes: input.max_bytes });
}
