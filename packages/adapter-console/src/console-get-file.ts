/** get_file through the guest channel; the channel enforces max_bytes and NOT_FOUND. */
import type { AdapterContext } from '@vmhub/core';
import { guestChannel, guestPath } from './guest.ts';

export async function getFile(ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  const ch = await guestChannel(ctx);
  return ch.getFile(guestPath(ch, input.path, 'path'), { maxBytes: input.max_bytes });
}
