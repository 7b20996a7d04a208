/** put_file through the guest channel (the QEMU guest agent). `path` is absolute and normalised (core resolved it). */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import { guestChannel } from './guest.ts';

export async function putFile(ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void> {
  const ch = await guestChannel(ctx);
  // GuestChannel.putFile takes no signal: a cancelled call only stops before it starts.
  throwIfCancelled(ctx.signal, 'put_file');
  await ch.putFile(input.path, input.data, input.mode === undefined ? {} : { mode: input.mode });
}
