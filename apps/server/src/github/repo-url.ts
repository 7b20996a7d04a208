/**
 * Which GitHub repository a clone URL names, for vm_clone_repo {push: true}: only an http(s) URL
 * of the App's web host (github.com for the public API; the api_url's host for GitHub Enterprise
 * Server, or `github_app.web_host`) of the form `/<owner>/<repo>[.git]`. Anything else is
 * INVALID_REQUEST: a token is minted for GitHub repositories only, and over SSH git would not use
 * it. The guest's credential answers exactly this URL (the clone's origin there).
 */
import { VmhubError } from '@vmhub/core';
import { DEFAULT_API_URL } from './api.ts';

export interface GithubRepo {
  owner: string;
  repo: string;
  /** The URL as given, without userinfo: the clone's origin in the guest, which git pushes to and its credential answers. */
  url: string;
  /** `host/owner/repo`, what the store's plain `scope` says. */
  scope: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export function webOrigin(apiUrl: string | undefined, webHost: string | undefined): { scheme: string; host: string } {
  const api = new URL(apiUrl ?? DEFAULT_API_URL);
  if (webHost) return { scheme: api.protocol.replace(':', ''), host: webHost.toLowerCase() };
  return { scheme: api.protocol.replace(':', ''), host: api.host === 'api.github.com' ? 'github.com' : api.host };
}

export function githubRepo(url: string, apiUrl: string | undefined, webHost: string | undefined): GithubRepo {
  const origin = webOrigin(apiUrl, webHost);
  const refuse = (why: string) => new VmhubError('INVALID_REQUEST', `push: true needs a repository on ${origin.host}, the GitHub App's host: ${why}`, { hint: `Give the repository's ${origin.scheme}://${origin.host}/<owner>/<repo>.git URL, or clone without push.` });
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw refuse(`${JSON.stringify(url.slice(0, 200))} is not an ${origin.scheme} URL (SSH URLs cannot use a token)`);
  }
  if (u.protocol !== `${origin.scheme}:`) throw refuse(`${u.protocol}// URLs cannot carry the token (only ${origin.scheme}://)`);
  if (u.host.toLowerCase() !== origin.host) throw refuse(`${u.host} is another host`);
  if (u.username || u.password || u.search || u.hash) throw refuse('the URL carries userinfo, a query or a fragment');
  const parts = u.pathname.replace(/\/+$/, '').split('/').filter(Boolean);
  const owner = parts[0];
  const repo = parts[1]?.replace(/\.git$/, '');
  if (parts.length !== 2 || !owner || !repo || !NAME.test(owner) || !NAME.test(repo)) throw refuse(`${u.pathname} is not /<owner>/<repo>`);
  return { owner, repo, url: `${u.protocol}//${u.host}${u.pathname}`, scope: `${origin.host}/${owner}/${repo}` };
}
