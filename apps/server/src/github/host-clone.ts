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
import { GithubApp } from './app.ts';
import { grantPush } from './push-grant.ts';

export type HostCloneFn = (input: ToolInput<'vm_clone_repo'>, template: TemplateConfig) => Promise<HostClone>;

export function hostClone(config: VmhubConfig, store: () => Promise<Store>, env: NodeJS.ProcessEnv = process.env): HostCloneFn {
  const app = config.github_app ? new GithubApp(config.github_app, env) : undefined;
  return async (input, template) => {
    if (!input.push) return cloneOnHost(input, config.clone, template.clone_credentials, env);
    if (!app) throw new VmhubError('CAPABILITY_UNAVAILABLE', 'vm_clone_repo {push: true} needs a GitHub App, and this server has no github_app configured', { hint: 'Clone without push, or ask the operator to configure github_app (docs/github-app.md).' });
    const grant = await grantPush({ app, store: await store(), webHost: config.github_app!.web_host, log }, input.lease_id, input.url, template);
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
      },
    };
  };
}
