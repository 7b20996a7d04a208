/**
 * The GitHub App as vmhub uses it: find the installation that covers a repository
 * (`GET /repos/{owner}/{repo}/installation`, unless `installation_id` is configured) and mint an
 * installation token down-scoped to that one repository (`POST /app/installations/{id}/access_tokens`
 * with `repositories: [repo]` and `contents: write`, plus `pull_requests: write` when the template
 * asks). Errors are typed: a bad key or id names the config key (INVALID_REQUEST, app-key.ts); an
 * App not installed on the repository is CAPABILITY_UNAVAILABLE naming it; any other refusal is
 * PROVISION_FAILED with GitHub's message. Revocation is the reaper's (credentials.ts), which needs
 * only the token.
 */
import { VmhubError } from '@vmhub/core';
import { DEFAULT_API_URL, githubCall } from './api.ts';
import { loadAppIdentity, type AppIdentity, type GithubAppConfig } from './app-key.ts';
import { appJwt } from './app-jwt.ts';
import type { GithubRepo } from './repo-url.ts';

const SOURCE = 'github-app';
/** GitHub's tokens are ~40 characters today and up to ~520 in its announced format; anything longer is refused. */
export const MAX_TOKEN_LENGTH = 1000;

export interface MintedToken {
  token: string;
  /** ms */
  expiresAt: number;
  installationId: number;
  permissions: Record<string, string>;
}

export class GithubApp {
  readonly apiUrl: string;
  readonly #config: GithubAppConfig;
  readonly #env: NodeJS.ProcessEnv;
  #identity: AppIdentity | undefined;

  constructor(config: GithubAppConfig, env: NodeJS.ProcessEnv = process.env) {
    this.#config = config;
    this.#env = env;
    this.apiUrl = (config.api_url ?? DEFAULT_API_URL).replace(/\/+$/, '');
  }

  /** The App's id and key, read once (a config error is thrown again on every call until fixed). */
  identity(): AppIdentity {
    return (this.#identity ??= loadAppIdentity(this.#config, this.#env));
  }

  async installationFor(repo: GithubRepo): Promise<number> {
    if (this.#config.installation_id !== undefined) return this.#config.installation_id;
    const res = await githubCall(this.apiUrl, 'GET', `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}/installation`, `Bearer ${appJwt(this.identity())}`);
    if (res.status === 200 && typeof res.body.id === 'number') return res.body.id;
    if (res.status === 404) throw notInstalled(repo, this.identity().appId);
    throw refused('finding the App\'s installation for', repo, res.status, res.message);
  }

  async mint(repo: GithubRepo, installationId: number, extra: readonly 'pull_requests'[] = []): Promise<MintedToken> {
    const permissions: Record<string, string> = { contents: 'write', ...Object.fromEntries(extra.map((p) => [p, 'write'])) };
    const res = await githubCall(this.apiUrl, 'POST', `/app/installations/${installationId}/access_tokens`, `Bearer ${appJwt(this.identity())}`, { repositories: [repo.repo], permissions });
    if (res.status !== 201) {
      // A configured installation that does not cover the repository: the App is not installed on it.
      if (res.status === 404 || (res.status === 422 && this.#config.installation_id !== undefined && /repositor/i.test(res.message))) throw notInstalled(repo, this.identity().appId, res.message);
      throw refused('minting a token for', repo, res.status, res.message);
    }
    const token = res.body.token;
    const expires = Date.parse(String(res.body.expires_at));
    if (typeof token !== 'string' || !token || token.length > MAX_TOKEN_LENGTH || /[^\x21-\x7e]/.test(token) || !Number.isFinite(expires)) {
      throw new VmhubError('PROVISION_FAILED', `GitHub answered the token request for ${repo.owner}/${repo.repo} without a usable token (${typeof token === 'string' ? `${token.length} characters` : 'none'}, expires_at ${JSON.stringify(res.body.expires_at)})`, { source: SOURCE });
    }
    return { token, expiresAt: expires, installationId, permissions };
  }
}

function notInstalled(repo: GithubRepo, appId: number, detail?: string): VmhubError {
  return new VmhubError('CAPABILITY_UNAVAILABLE', `the GitHub App ${appId} is not installed on ${repo.owner}/${repo.repo}${detail ? ` (GitHub: ${detail})` : ''}`, { source: SOURCE, hint: `Install the App on ${repo.owner}/${repo.repo} (or its account), or clone without push.` });
}

function refused(what: string, repo: GithubRepo, status: number, message: string): VmhubError {
  const retryable = status >= 500 || status === 429;
  return new VmhubError('PROVISION_FAILED', `GitHub refused ${what} ${repo.owner}/${repo.repo}: ${status} ${message}`, { source: SOURCE, retryable, ...(status === 401 ? { hint: 'Check github_app.app_id and that the private key is the App\'s current one (the host clock must be right within a minute).' } : {}) });
}
