/**
 * vm_clone_repo {push: true}, the host's part: mint a token for the one repository (app.ts), keep
 * it sealed in the store as the lease's credential BEFORE using it (a crash from here on leaves it
 * for the reaper to revoke), and hand back what the clone needs: the token for the host-side clone
 * (git-plan scopes it to the repository's origin) and the guest's credential. `abandon()` revokes
 * at once when the clone does not reach the guest. The template's `github_permissions` widen the
 * token (pull_requests); nothing else does.
 */
import { VmhubError, type TemplateConfig } from '@vmhub/core';
import { revokeCredential, type Logger } from '@vmhub/reaper';
import type { Store } from '@vmhub/store';
import type { GithubApp } from './app.ts';
import { githubRepo } from './repo-url.ts';

export const TOKEN_KIND = 'github_app_token';
export const USERNAME = 'x-access-token';

export interface PushGrant {
  /** For the host-side clone: basic-auth user and password, for the repository's origin only. */
  token: { username: string; secret: string };
  /** For the adapter's installGitCredential. */
  guest: { url: string; username: string; secret: string };
  /** Revoke now (the clone failed); logged, never throws. */
  abandon(): Promise<void>;
}

export interface GrantContext {
  app: GithubApp;
  store: Store;
  webHost?: string | undefined;
  log?: Logger;
}

export async function grantPush(ctx: GrantContext, leaseId: string, url: string, template: TemplateConfig, dest?: string): Promise<PushGrant> {
  const repo = githubRepo(url, ctx.app.apiUrl, ctx.webHost);
  ctx.app.identity(); // a config error (key, id) before any request
  const installation = await ctx.app.installationFor(repo);
  const minted = await ctx.app.mint(repo, installation, template.github_permissions ?? []);
  const secret = { token: minted.token, revoke_url: `${ctx.app.apiUrl}/installation/token` };
  let id: string;
  try {
    id = await ctx.store.addLeaseCredential(leaseId, {
      kind: TOKEN_KIND, scope: repo.scope, secret, expires_at: minted.expiresAt,
      details: { installation_id: installation, repository: `${repo.owner}/${repo.repo}`, permissions: minted.permissions, url: repo.url, ...(dest ? { dest } : {}) },
    });
  } catch (err) {
    // Not recorded, so nobody else would revoke it: revoke it here before failing.
    await revokeCredential(ctx.store, { id: '', lease_id: leaseId, kind: TOKEN_KIND, scope: repo.scope, details: {}, expires_at: minted.expiresAt, created_at: Date.now(), revoked_at: undefined, outcome: undefined, attempts: 0, last_error: undefined, secret }, { attempts: 2 }).catch(() => undefined);
    throw new VmhubError('STORE_UNAVAILABLE', `the token minted for ${repo.owner}/${repo.repo} could not be recorded, so it was revoked: ${(err as Error).message}`, { retryable: true, cause: err });
  }
  ctx.log?.('info', 'github token minted for a lease', { lease_id: leaseId, credential: id, scope: repo.scope, expires_at: new Date(minted.expiresAt).toISOString() });
  return {
    token: { username: USERNAME, secret: minted.token },
    guest: { url: repo.url, username: USERNAME, secret: minted.token },
    async abandon() {
      const open = (await ctx.store.leaseCredentials(leaseId).catch(() => [])).find((c) => c.id === id);
      if (open) await revokeCredential(ctx.store, open, { ...(ctx.log ? { log: ctx.log } : {}) });
    },
  };
}
