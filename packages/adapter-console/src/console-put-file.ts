/** put_file through the guest channel (the QEMU guest agent). */
import type { AdapterContext } from '@vmhub/core';
import { guestChannel, guestPath } from './guest.ts';

export async function putFile(ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void> {
  const ch = await guestChannel(ctx);
  await ch.putFile(guestPath(ch, input.path, 'path'), input.data, input.mode === undefined ? {} : { mode: input.mode });
}
