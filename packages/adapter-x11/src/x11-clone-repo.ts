/**
 * Clone repo: the kit unpacks the host-made clone's tar stream at dest (the channel's archive API,
 * else `tar -x` in the guest through the session's guest runner), as the session's user. vm_clone_repo {push: true}'s credential goes in with the kit's
 * installGitCredential (0600 in the user's home, scoped to the repository's URL).
 */
import type { AdapterContext } from '@vmhub/core';
import { installGitCredential as install, unpackRepo, type GitCredential } from '@vmhub/core/adapter-kit';
import type { Readable } from 'node:stream';
import { errors } from './errors.ts';
import type { X11Runtime } from './runtime.ts';

export function cloneRepo(rt: X11Runtime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  return unpackRepo(ctx, input, rt.options, errors, () => rt.guest(ctx));
}

export function installGitCredential(rt: X11Runtime, ctx: AdapterContext, input: GitCredential): Promise<void> {
  return install(ctx, input, errors, () => rt.guest(ctx));
}
