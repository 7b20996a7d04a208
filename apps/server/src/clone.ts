/**
 * vm_clone_repo, host side: the URL passes the clone policy (clone/policy.ts: scheme, host list,
 * and every address the host resolves to), git connects to exactly the checked addresses
 * (clone/git-plan.ts), the repository is cloned here with host-held credentials scoped to their
 * origin (never in tool arguments, results, argv or the clone's .git/config), and the working
 * tree with .git is streamed into the guest as a tar.
 */
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VmhubError, type ToolInput } from '@vmhub/core';
import { credentialStoreLine } from '@vmhub/core/adapter-kit';
import type { HostClone } from '@vmhub/core/router';
import { credentialFor, originOf, tokenCredential } from './clone/credentials.ts';
import { gitPlan } from './clone/git-plan.ts';
import { GitRedirect, runGit } from './clone/git-run.ts';
import { resolveCloneTarget, systemLookup, type CloneConfig, type CloneTarget, type Lookup } from './clone/policy.ts';
import { denied, redirectTarget } from './clone/redirect.ts';

export { checkCloneUrl } from './clone/policy.ts';
export type { Lookup } from './clone/policy.ts';

/** HTTP redirects vmhub follows for one clone, each one through the whole policy. */
export const MAX_REDIRECTS = 3;

export interface CloneHooks {
  /** Name resolution used by the policy (default: dns.lookup, i.e. getaddrinfo). */
  lookup?: Lookup;
  /**
   * vm_clone_repo {push: true}: the per-lease token minted for this repository, used instead of
   * the configured credentials, and only for the URL's own origin (a redirect elsewhere gets
   * what the configuration says for that origin, never this token).
   */
  token?: { username: string; secret: string };
}

async function treeStats(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    bytes += (await stat(path)).size;
    if (!path.startsWith(`${dir}/.git/`)) files++;
  }
  return { files, bytes };
}

export async function cloneOnHost(input: ToolInput<'vm_clone_repo'>, policy: CloneConfig, templateCredentials: CloneConfig['credentials'] = {}, env: NodeJS.ProcessEnv = process.env, hooks: CloneHooks = {}): Promise<HostClone> {
  const deadline = Date.now() + policy.timeout_seconds * 1000;
  const left = () => Math.max(1, deadline - Date.now());
  const lookup = hooks.lookup ?? systemLookup;
  let target = await resolveCloneTarget(input.url, policy, lookup, left());
  const work = await mkdtemp(join(tmpdir(), 'vmhub-clone-'));
  const dest = join(work, 'tree');
  const baseEnv: NodeJS.ProcessEnv = { PATH: env.PATH, HOME: work, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_ALLOW_PROTOCOL: [...policy.allowed_schemes, ...(policy.allow_file ? ['file'] : [])].join(':') };
  try {
    const isSha = input.ref !== undefined && /^[0-9a-f]{7,40}$/i.test(input.ref);
    let gitUrl: string;
    const firstOrigin = originOf(target);
    const tokenFile = hooks.token ? join(work, 'push-credential') : undefined;
    if (tokenFile) await writeFile(tokenFile, credentialStoreLine(`${firstOrigin}/`, hooks.token!.username, hooks.token!.secret), { mode: 0o600 });
    for (let hop = 0; ; hop++) {
      const credential = hooks.token && originOf(target) === firstOrigin
        ? { ...tokenCredential(firstOrigin, hooks.token), storeFile: tokenFile! }
        : credentialFor(target, templateCredentials, policy.credentials, env, originOf(target) !== firstOrigin);
      const plan = gitPlan(target, credential);
      const args = ['clone', '--quiet', '--no-hardlinks'];
      if (input.depth && !isSha) args.push('--depth', String(input.depth));
      if (input.ref && !isSha) args.push('--branch', input.ref);
      args.push('--', plan.url, dest);
      try {
        await runGit(args, work, { ...baseEnv, ...plan.env }, left());
        gitUrl = plan.url;
        break;
      } catch (err) {
        if (!(err instanceof GitRedirect)) throw err;
        await rm(dest, { recursive: true, force: true });
        target = await nextHop(target, credential, hop, policy, lookup, left);
      }
    }
    if (isSha) await runGit(['-C', dest, 'checkout', '--quiet', '--detach', input.ref!], work, baseEnv, left());
    // The guest gets the URL the agent asked for, not the pinned address git was given.
    if (gitUrl !== input.url) await runGit(['-C', dest, 'remote', 'set-url', 'origin', input.url], work, baseEnv, left());
    const commit = (await runGit(['-C', dest, 'rev-parse', 'HEAD'], work, baseEnv, left())).trim();
    const { files, bytes } = await treeStats(dest);
    if (bytes > policy.max_bytes) throw new VmhubError('INVALID_REQUEST', `the clone is ${bytes} bytes, over clone.max_bytes ${policy.max_bytes}; use depth or a smaller repository`);
    const tar = spawn('tar', ['-c', '-C', dest, '--numeric-owner', '--owner=0', '--group=0', '.'], { stdio: ['ignore', 'pipe', 'ignore'] });
    // Attach a consumer now: when a child exits, Node resumes (and so discards) stdio streams
    // nobody has read yet, and the adapter starts reading only after its own awaits. Seen: a small
    // repository arrived in the guest as an empty directory.
    const archive = tar.stdout.pipe(new PassThrough({ highWaterMark: 1024 * 1024 }));
    return {
      archive,
      commit,
      ...(input.ref ? { ref: input.ref } : {}),
      files,
      cleanup: async () => { tar.kill(); await rm(work, { recursive: true, force: true }); },
    };
  } catch (err) {
    await rm(work, { recursive: true, force: true });
    throw err;
  }
}

/** The redirect git refused, judged by the whole policy as if the agent had asked for its target. */
async function nextHop(from: CloneTarget, credential: ReturnType<typeof credentialFor>, hop: number, policy: CloneConfig, lookup: Lookup, left: () => number): Promise<CloneTarget> {
  if (from.url.transport !== 'curl') throw denied(from, 'answered with a redirect, which vm_clone_repo does not follow outside HTTP');
  const next = await redirectTarget(from, credential, left());
  if (next === undefined) throw denied(from, 'redirected a request after the first one; vm_clone_repo follows only the first request\'s redirect, as git does');
  if (hop >= MAX_REDIRECTS) throw denied(from, `redirects to ${next}, more than ${MAX_REDIRECTS} redirects`, next);
  if (!/^https?:\/\//i.test(next)) throw denied(from, `redirects to ${next}, which is not HTTP(S)`, next);
  try {
    return await resolveCloneTarget(next, policy, lookup, left());
  } catch (err) {
    if (err instanceof VmhubError && (err.code === 'POLICY_DENIED' || err.code === 'INVALID_REQUEST')) throw denied(from, `redirects to ${next}, which the clone policy refuses: ${err.message}`, next);
    throw err;
  }
}
