/**
 * Clone repo: the kit unpacks the host-made clone's tar stream at dest (the channel's archive API,
 * else `tar -x` in the guest through the session's guest runner), as the session's user.
 */
import type { AdapterContext } from '@vmhub/core';
import { unpackRepo } from '@vmhub/core/adapter-kit';
import type { Readable } from 'node:stream';
import { errors } from './errors.ts';
import type { X11Runtime } from './runtime.ts';

export function cloneRepo(rt: X11Runtime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  return unpackRepo(ctx, input, rt.options, errors, () => rt.guest(ctx));
}
