/**
 * vm_clone_repo {push: true}, the host's part: mint a token for the one repository (app.ts), keep
 * it sealed in the store as the lease's credential BEFORE using it (a crash from here on leaves it
 * for the reaper to revoke), and hand back what the clone needs: the token for the host-side clone
 * (git-plan scopes it to the repository's origin) and the guest's credential. `abandon()` revokes
 * at once when the clone does not reach the guest. The template's `github_permissions` widen the
 * token (pull_requests); nothing else does.
 */
import { VmhubError, type TemplateConfig } from '@vmhub/core';
import { revokeCredential, revokeToken, type Logger } from '@vmhub/reaper';
import type { LeaseCredential, Store } from '@vmhub/store';
import type { GithubApp } from './app.ts';
import { githubRepo, type GithubRepo } from './repo-url.ts';

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

/** What a token's row says beyond its secret: enough to mint its successor and install it again. */
export interface TokenDetails {
  installation_id: number;
  /** `owner/repo` */
  repository: string;
  permissions: Record<string, string>;
  /** The URL the guest's credential answers. */
  url: string;
  /** Where the clone is in the guest (absent: the token is not refreshed). */
  dest?: string;
}

/**
 * Mint a token for the repository and record it (sealed) before anyone uses it. If it cannot be
 * recorded, nobody else would ever revoke it: it is revoked here and the call fails.
 */
export async function mintRecorded(app: GithubApp, store: Store, leaseId: string, repo: GithubRepo, details: Omit<TokenDetails, 'permissions'>, extra: readonly 'pull_requests'[]): Promise<LeaseCredential> {
  const minted = await app.mint(repo, details.installation_id, extra);
  const secret = { token: minted.token, revoke_url: `${app.apiUrl}/installation/token` };
  try {
    return await store.addLeaseCredential(leaseId, { kind: TOKEN_KIND, scope: repo.scope, secret, expires_at: minted.expiresAt, details: { ...details, permissions: minted.permissions } });
  } catch (err) {
    await revokeToken(secret, minted.expiresAt, { attempts: 2 });
    throw new VmhubError('STORE_UNAVAILABLE', `the token minted for ${repo.owner}/${repo.repo} could not be recorded, so it was revoked: ${(err as Error).message}`, { retryable: true, cause: err });
  }
}

export async function grantPush(ctx: GrantContext, leaseId: string, url: string, template: TemplateConfig, dest?: string): Promise<PushGrant> {
  const repo = githubRepo(url, ctx.app.apiUrl, ctx.webHost);
  const installation = await ctx.app.installationFor(repo);
  const c = await mintRecorded(ctx.app, ctx.store, leaseId, repo, { installation_id: installation, repository: `${repo.owner}/${repo.repo}`, url: repo.url, ...(dest ? { dest } : {}) }, template.github_permissions ?? []);
  const token = c.secret.token!;
  ctx.log?.('info', 'github token minted for a lease', { lease_id: leaseId, credential: c.id, scope: repo.scope, expires_at: new Date(c.expires_at).toISOString() });
  return {
    token: { username: USERNAME, secret: token },
    guest: { url: repo.url, username: USERNAME, secret: token },
    async abandon() {
      await revokeCredential(ctx.store, c, { ...(ctx.log ? { log: ctx.log } : {}) });
    },
  };
}
