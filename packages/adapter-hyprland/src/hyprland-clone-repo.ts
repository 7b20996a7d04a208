/**
 * Clone repo: the kit unpacks the host-made clone's tar stream at dest (the channel's archive API,
 * else `tar -x` in the guest), as the session's user.
 */
import type { AdapterContext } from '@vmhub/core';
import { unpackRepo } from '@vmhub/core/adapter-kit';
import type { Readable } from 'node:stream';
import { errors } from './errors.ts';
import { openGuest } from './guest.ts';
import type { HyprRuntime } from './runtime.ts';

export function cloneRepo(rt: HyprRuntime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  // Unpacking needs no desktop: the bare guest works while the compositor is down.
  return unpackRepo(ctx, input, rt.options, errors, () => openGuest(ctx, rt.options, {}));
}
