/**
 * Clone repo: the kit unpacks the host-made clone's tar stream at dest (the channel's archive API,
 * else `tar -x` in the guest), as the session's user. vm_clone_repo {push: true}'s credential goes in with the kit's
 * installGitCredential (0600 in the user's home, scoped to the repository's URL).
 */
import type { AdapterContext } from '@vmhub/core';
import { installGitCredential as install, unpackRepo, type GitCredential } from '@vmhub/core/adapter-kit';
import type { Readable } from 'node:stream';
import { errors } from './errors.ts';
import { openGuest } from './guest.ts';
import type { HyprRuntime } from './runtime.ts';

export function cloneRepo(rt: HyprRuntime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  // Unpacking needs no desktop: the bare guest works while the compositor is down.
  return unpackRepo(ctx, input, rt.options, errors, () => openGuest(ctx, rt.options, {}));
}

export function installGitCredential(rt: HyprRuntime, ctx: AdapterContext, input: GitCredential): Promise<void> {
  return install(ctx, input, errors, () => openGuest(ctx, rt.options, {}));
}
