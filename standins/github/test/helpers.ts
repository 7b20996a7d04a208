/**
 * Shared by this package's tests: one App key pair per process, a stand-in with one installation
 * (acme: widgets, gadgets, other), a JSON client for the API, and a real git client that gets its
 * credentials from GIT_ASKPASS (never from the URL) with every helper and user config switched off.
 */
import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir, type TempDir } from '@vmhub/test-kit';
import { makeAppKeyPair, signAppJwt, startGithubStandin, type GithubStandin, type GithubStandinOptions } from '../src/index.ts';

const run = promisify(execFile);

export const APP_ID = 4242;
export const INSTALLATION_ID = 77;
export const keys = makeAppKeyPair();

export function standin(overrides: Partial<GithubStandinOptions> = {}): Promise<GithubStandin> {
  return startGithubStandin({
    app: { id: APP_ID, slug: 'vmhub-test', publicKeyPem: keys.publicKeyPem },
    installations: [{ id: INSTALLATION_ID, account: 'acme', repositories: ['acme/widgets', 'acme/gadgets', 'acme/other'] }],
    log: () => {},
    ...overrides,
  });
}

export const jwt = (options: Parameters<typeof signAppJwt>[2] = {}) => signAppJwt(keys.privateKeyPem, APP_ID, options);

export interface ApiReply {
  status: number;
  body: any;
  headers: Headers;
}

export async function api(s: GithubStandin, method: string, path: string, options: { auth?: string; body?: unknown; rawBody?: string } = {}): Promise<ApiReply> {
  const headers: Record<string, string> = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };
  if (options.auth) headers.authorization = options.auth;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const res = await fetch(`${s.apiUrl}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Mints a token for `repositories` (names without owner) with `permissions`. */
export async function mint(s: GithubStandin, repositories: string[], permissions: Record<string, string> = { contents: 'write' }): Promise<string> {
  const r = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: `Bearer ${jwt()}`, body: { repositories, permissions } });
  if (r.status !== 201) throw new Error(`mint: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.token;
}

/** A git client: `git(args, token?)` runs with askpass answering `x-access-token` / the token. */
export interface GitClient {
  dir: TempDir;
  git(args: string[], options?: { token?: string; cwd?: string }): Promise<{ code: number; stdout: string; stderr: string }>;
}

export async function gitClient(): Promise<GitClient> {
  const dir = tempDir('github-standin-client-');
  const askpass = join(dir.path, 'askpass.sh');
  await writeFile(askpass, '#!/bin/sh\ncase "$1" in\n  Username*) echo x-access-token ;;\n  *) echo "$STANDIN_TEST_TOKEN" ;;\nesac\n');
  await chmod(askpass, 0o755);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir.path,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: askpass,
    GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.invalid',
    GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.invalid',
  };
  return {
    dir,
    async git(args, options = {}) {
      try {
        const { stdout, stderr } = await run('git', ['-c', 'credential.helper=', ...args], {
          cwd: options.cwd ?? dir.path,
          env: { ...env, STANDIN_TEST_TOKEN: options.token ?? '' },
        });
        return { code: 0, stdout, stderr };
      } catch (err: any) {
        return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(err) };
      }
    },
  };
}
