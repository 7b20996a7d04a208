/** probe: files/exec/clone are declared but need a guest channel; say so when there is none. */
import type { AdapterContext, Capability } from '@vmhub/core';
import { guestChannel, NO_CHANNEL_REASON } from './guest.ts';

export async function probe(ctx: AdapterContext): Promise<Partial<Record<Capability, string>>> {
  try {
    await guestChannel(ctx);
    return {};
  } catch (err) {
    const reason = err instanceof Error ? err.message : NO_CHANNEL_REASON;
    return { put_file: reason, get_file: reason, exec: reason, clone_repo: reason };
  }
}
