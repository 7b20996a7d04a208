/**
 * vm_clone_repo's host side as the server wires it (RouterHost clone.onHost): without `push`, the
 * host-held credentials of clone.ts; with `push: true`, a token minted for the one repository
 * (push-grant.ts) clones it on the host — through a credential-store file only git reads, never
 * its environment — and is handed to the adapter to install in the guest. If anything fails
 * before the credential is in the guest, the token is revoked at once.
 */
import { VmhubError, type TemplateConfig, type ToolInput } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';
import type { HostClone } from '@vmhub/core/router';
import type { Store } from '@vmhub/store';
import { cloneOnHost } from '../clone.ts';
import { log } from '../log.ts';
import { grantPush } from './push-grant.ts';
import type { GithubRuntime } from './runtime.ts';

export type HostCloneFn = (input: ToolInput<'vm_clone_repo'>, template: TemplateConfig, dest?: string) => Promise<HostClone>;

/** What the push path needs from the runtime: the store, and the App with its token refresher (github/runtime.ts). */
export interface PushRuntime {
  store: Store;
  github?: GithubRuntime | undefined;
}

export function hostClone(config: VmhubConfig, runtime: () => Promise<PushRuntime>, env: NodeJS.ProcessEnv = process.env): HostCloneFn {
  return async (input, template, dest) => {
    if (!input.push) return cloneOnHost(input, config.clone, template.clone_credentials, env);
    const rt = await runtime();
    if (!rt.github) throw new VmhubError('CAPABILITY_UNAVAILABLE', 'vm_clone_repo {push: true} needs a GitHub App, and this server has no github_app configured', { hint: 'Clone without push, or ask the operator to configure github_app (docs/github-app.md).' });
    const grant = await grantPush({ app: rt.github.app, store: rt.store, webHost: config.github_app!.web_host, log }, input.lease_id, input.url, template, dest);
    let clone: HostClone;
    try {
      clone = await cloneOnHost(input, config.clone, template.clone_credentials, env, { token: grant.token });
    } catch (err) {
      await grant.abandon();
      throw err;
    }
    return {
      ...clone,
      credential: grant.guest,
      async cleanup(outcome) {
        await clone.cleanup();
        if (outcome !== 'ok') await grant.abandon();
        else await rt.github!.tokens.watch(input.lease_id);
      },
    };
  };
}
