/**
 * startGithubStandin: one node:http server for the REST API (`/api/v3/…`, api.ts) and git smart
 * HTTP (`/<owner>/<repo>.git/…`, git-http.ts), with the state both share — installations,
 * repositories and their ids, tokens — and the records tests read. The contract is in types.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_PREFIX, handleApi, type ApiContext, type Installation } from './api.ts';
import { defaultMessage, githubError, MESSAGES } from './errors.ts';
import { gitRoute, handleGit, type GitContext } from './git-http.ts';
import { appPublicKey } from './jwt.ts';
import { compiledOperations } from './openapi.ts';
import { createBareRepo, readNewPushes, repoDir, splitFullName } from './repos.ts';
import { TokenStore } from './tokens.ts';
import type {
  CreatedRepo, CreateRepoOptions, GithubStandin, GithubStandinOptions, OperationAlias, OperationId, Permissions,
  PushRecord, RequestRecord, RequestViolation, SchemaViolation,
} from './types.ts';
import type { AccountInfo } from './wire.ts';

const ALIASES: Record<OperationAlias, OperationId> = {
  lookup: 'apps/get-repo-installation',
  mint: 'apps/create-installation-access-token',
  revoke: 'apps/revoke-installation-access-token',
};

export const DEFAULT_APP_PERMISSIONS: Permissions = { contents: 'write', pull_requests: 'write', metadata: 'read' };

function urlHostOf(host: string, urlHost: string | undefined): string {
  const h = urlHost ?? (host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host);
  return h.includes(':') ? `[${h}]` : h;
}

export async function startGithubStandin(options: GithubStandinOptions): Promise<GithubStandin> {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const host = options.host ?? '127.0.0.1';
  const appPermissions = options.app.permissions ?? DEFAULT_APP_PERMISSIONS;
  const appSlug = options.app.slug ?? 'vmhub-test';
  const publicKey = appPublicKey(options.app);
  const ops = compiledOperations();
  const createdAt = new Date(Math.floor(now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

  const ownRoot = options.gitRoot === undefined;
  const gitRoot = options.gitRoot ?? await mkdtemp(join(tmpdir(), 'github-standin-'));
  const home = await mkdtemp(join(tmpdir(), 'github-standin-home-'));

  // Accounts and repository ids, stable for the stand-in's life (GitHub's are too).
  const accounts = new Map<string, AccountInfo>();
  const account = (login: string, type: AccountInfo['type'] = 'Organization'): AccountInfo => {
    const key = login.toLowerCase();
    let a = accounts.get(key);
    if (!a) { a = { login, id: 100 + accounts.size, type }; accounts.set(key, a); }
    return a;
  };
  const repoIds = new Map<string, { id: number; fullName: string }>();
  const repoId = (fullName: string): number => {
    const key = fullName.toLowerCase();
    let r = repoIds.get(key);
    if (!r) { r = { id: 1000 + repoIds.size, fullName }; repoIds.set(key, r); }
    return r.id;
  };
  const repoById = (id: number) => [...repoIds.values()].find((r) => r.id === id)?.fullName;

  const installations: Installation[] = (options.installations ?? []).map((i) => {
    const acc = account(i.account, i.accountType ?? 'Organization');
    for (const r of i.repositories) {
      const [owner] = splitFullName(r);
      if (owner.toLowerCase() !== acc.login.toLowerCase()) throw new Error(`github-standin: installation ${i.id} is on ${acc.login}; ${r} belongs to another account`);
      repoId(r);
    }
    return { id: i.id, account: acc, repositories: [...i.repositories], permissions: { ...(i.permissions ?? appPermissions) } };
  });

  const tokens = new TokenStore({ appId: options.app.id, long: options.longTokens ?? false, ttlMs: options.tokenTtlMs ?? 3_600_000, now });
  const requests: RequestRecord[] = [];
  const pushes: PushRecord[] = [];
  const schemaViolations: SchemaViolation[] = [];
  const requestViolations: RequestViolation[] = [];
  const failures: { op: OperationId; status: number; message: string }[] = [];
  const pushLogOffsets = new Map<string, number>();

  let baseUrl = '';
  let apiUrl = '';
  const urls = { get apiUrl() { return apiUrl; }, get baseUrl() { return baseUrl; } };

  const apiCtx: ApiContext = {
    urls, ops, installations, tokens, now, createdAt, repoId, repoById, schemaViolations, requestViolations, log,
    app: { id: options.app.id, clientId: options.app.clientId, publicKey, slug: appSlug },
    account: (login) => account(login),
    takeFailure: (op) => {
      const i = failures.findIndex((f) => f.op === op);
      return i < 0 ? undefined : failures.splice(i, 1)[0];
    },
  };
  const gitCtx: GitContext = {
    root: gitRoot, home, backend: options.gitHttpBackend ?? '/usr/lib/git-core/git-http-backend', appSlug, tokens, log,
    afterReceivePack: async (fullName) => {
      const key = fullName.toLowerCase();
      const got = await readNewPushes(repoDir(gitRoot, fullName), fullName, pushLogOffsets.get(key) ?? 0, new Date(now()).toISOString());
      pushLogOffsets.set(key, got.offset);
      pushes.push(...got.pushes);
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://standin.invalid');
    const record: RequestRecord = { method: req.method ?? 'GET', path: url.pathname, status: 0, at: new Date(now()).toISOString() };
    requests.push(record);
    res.on('finish', () => { record.status = res.statusCode; });
    try {
      if (url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`)) {
        await handleApi(req, res, url.pathname.slice(API_PREFIX.length) || '/', record, apiCtx);
        return;
      }
      const route = gitRoute(url.pathname);
      if (route) {
        await handleGit(req, res, url, route, record, gitCtx);
        return;
      }
      req.resume();
      res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(githubError(404, MESSAGES.notFound)));
    } catch (err) {
      log(`github-standin: ${req.method} ${url.pathname} failed: ${(err as Error).stack ?? err}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(githubError(500, MESSAGES.serverError)));
      } else {
        res.destroy();
      }
    }
  };

  const server = createServer((req, res) => { void handle(req, res); });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => { server.off('error', reject); resolve(); });
  });
  const port = (server.address() as { port: number }).port;
  baseUrl = `http://${urlHostOf(host, options.urlHost)}:${port}`;
  apiUrl = `${baseUrl}${API_PREFIX}`;

  let closed = false;
  return {
    apiUrl, baseUrl, host, port, gitRoot,
    requests, tokens: tokens.records, revocations: tokens.revocations, pushes, schemaViolations, requestViolations,
    gitUrl(fullName: string): string {
      const [owner, repo] = splitFullName(fullName);
      return `${baseUrl}/${owner}/${repo}.git`;
    },
    async createRepo(fullName: string, createOptions: CreateRepoOptions = {}): Promise<CreatedRepo> {
      const [owner, repo] = splitFullName(fullName);
      account(owner);
      repoId(`${owner}/${repo}`);
      const made = await createBareRepo(gitRoot, `${owner}/${repo}`, createOptions.files ?? { 'README.md': `# ${repo}\n` }, home);
      return { path: made.path, url: `${baseUrl}/${owner}/${repo}.git`, headSha: made.headSha };
    },
    failNext(operation, status, message) {
      const op = (ALIASES as Record<string, OperationId>)[operation] ?? operation;
      if (!ops.some((o) => o.id === op)) throw new Error(`github-standin: failNext(): unknown operation ${operation}`);
      if (!Number.isInteger(status) || status < 400 || status > 599) throw new Error(`github-standin: failNext(): status must be 4xx or 5xx, got ${status}`);
      failures.push({ op: op as OperationId, status, message: message ?? defaultMessage(status) });
    },
    expire(token: string) {
      tokens.expire(token);
    },
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await rm(home, { recursive: true, force: true });
      if (ownRoot) await rm(gitRoot, { recursive: true, force: true });
    },
  };
}
