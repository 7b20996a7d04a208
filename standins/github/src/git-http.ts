/**
 * git smart HTTP in front of the real `git http-backend` (CGI), with GitHub's token checks.
 *
 * Routes (the only ones; the dumb protocol is not served):
 *   GET  /<owner>/<repo>[.git]/info/refs?service=git-upload-pack|git-receive-pack
 *   POST /<owner>/<repo>[.git]/git-upload-pack | git-receive-pack
 *
 * Auth, in this order, like github.com:
 *   - no Basic credentials → 401 + `WWW-Authenticate: Basic realm="GitHub"` (git then asks its
 *     credential helper / askpass and retries);
 *   - a password that is not a live installation token (unknown, revoked, expired) → 401, same
 *     header, text "Invalid username or token. Password authentication is not supported for Git
 *     operations." (git reports "Authentication failed"); the username is not checked (git sends
 *     whatever it has; GitHub's docs use `x-access-token`);
 *   - a live token not scoped to this repository, or a repository that does not exist → 404
 *     "Repository not found." (GitHub does not reveal which);
 *   - fetch/clone needs `contents: read` or `write`, push needs `contents: write` → else 403
 *     "Write access to repository not granted." / "Read access to repository not granted.".
 *
 * Then http-backend runs with a minimal environment: PATH, HOME (an empty dir),
 * GIT_CONFIG_NOSYSTEM, GIT_PROJECT_ROOT, GIT_HTTP_EXPORT_ALL, REMOTE_USER (`<app-slug>[bot]`,
 * which also enables receive-pack), REMOTE_ADDR, REQUEST_METHOD, PATH_INFO, QUERY_STRING,
 * CONTENT_TYPE, CONTENT_LENGTH when the client sent one (chunked bodies are read to EOF),
 * HTTP_CONTENT_ENCODING (gzip bodies are inflated by http-backend itself) and HTTP_GIT_PROTOCOL.
 * The token is in neither its argv nor its environment. Bodies stream both ways.
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NAME_PART, exists, repoDir } from './repos.ts';
import type { TokenStore } from './tokens.ts';
import type { RequestRecord } from './types.ts';

const ROUTE = /^\/([^/]+)\/([^/]+)\/(info\/refs|git-upload-pack|git-receive-pack)$/;

export interface GitContext {
  root: string;
  home: string;
  backend: string;
  appSlug: string;
  tokens: TokenStore;
  log: (line: string) => void;
  /** Called after a receive-pack CGI exits, to collect accepted ref updates. */
  afterReceivePack: (fullName: string) => Promise<void>;
}

/** `owner/repo` and the git action when `path` is a smart-HTTP route, else undefined. */
export function gitRoute(path: string): { owner: string; repo: string; action: string } | undefined {
  const m = ROUTE.exec(path);
  if (!m) return undefined;
  const owner = m[1]!;
  const repo = m[2]!.replace(/\.git$/, '');
  if (!NAME_PART.test(owner) || !NAME_PART.test(repo) || ['.', '..'].includes(owner) || ['.', '..'].includes(repo)) return undefined;
  return { owner, repo, action: m[3]! };
}

function basicPassword(header: string | undefined): string | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

function plain(res: ServerResponse, status: number, text: string, challenge: boolean): void {
  const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8' };
  if (challenge) headers['WWW-Authenticate'] = 'Basic realm="GitHub"';
  res.writeHead(status, headers);
  res.end(`${text}\n`);
}

/** Answers one git request; `record` gets its operation/repo filled in. */
export async function handleGit(req: IncomingMessage, res: ServerResponse, url: URL, route: { owner: string; repo: string; action: string }, record: RequestRecord, ctx: GitContext): Promise<void> {
  const fullName = `${route.owner}/${route.repo}`;
  record.repo = fullName;
  const service = route.action === 'info/refs' ? url.searchParams.get('service') : route.action;
  if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
    plain(res, 403, 'Please upgrade your git client.\nGitHub does not support the dumb HTTP protocol.', false);
    return;
  }
  record.operation = service;
  if ((route.action === 'info/refs') !== (req.method === 'GET' || req.method === 'HEAD') || (route.action !== 'info/refs' && req.method !== 'POST')) {
    plain(res, 405, 'Method Not Allowed', false);
    return;
  }

  const password = basicPassword(req.headers.authorization);
  if (password === undefined) {
    plain(res, 401, 'Authentication required.', true);
    return;
  }
  const token = ctx.tokens.live(password);
  if (!token) {
    plain(res, 401, 'Invalid username or token. Password authentication is not supported for Git operations.', true);
    return;
  }
  const dir = repoDir(ctx.root, fullName);
  const scoped = token.repositories.some((r) => r.toLowerCase() === fullName.toLowerCase());
  if (!scoped || !(await exists(dir))) {
    plain(res, 404, 'Repository not found.', false);
    return;
  }
  const level = token.permissions.contents;
  if (service === 'git-receive-pack' && level !== 'write' && level !== 'admin') {
    plain(res, 403, 'Write access to repository not granted.', false);
    return;
  }
  if (service === 'git-upload-pack' && level === undefined) {
    plain(res, 403, 'Read access to repository not granted.', false);
    return;
  }
  // The directory's real casing, as configured (GitHub names are case-insensitive; the disk is not).
  const pathInfo = `/${dir.slice(ctx.root.length + 1)}/${route.action}`;
  // Pushes are collected before the response ends, so a client that sees its push done finds it in `pushes`.
  const beforeEnd = service === 'git-receive-pack' && route.action === 'git-receive-pack' ? () => ctx.afterReceivePack(fullName) : async () => {};
  await runBackend(req, res, url, pathInfo, ctx, beforeEnd);
}

function runBackend(req: IncomingMessage, res: ServerResponse, url: URL, pathInfo: string, ctx: GitContext, beforeEnd: () => Promise<void>): Promise<void> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: ctx.home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_PROJECT_ROOT: ctx.root,
    GIT_HTTP_EXPORT_ALL: '1',
    REMOTE_USER: `${ctx.appSlug}[bot]`,
    REMOTE_ADDR: req.socket.remoteAddress ?? '',
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: pathInfo,
    QUERY_STRING: url.search.replace(/^\?/, ''),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
  };
  if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding'] !== undefined) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  const protocol = req.headers['git-protocol'];
  if (typeof protocol === 'string') env.HTTP_GIT_PROTOCOL = protocol;

  return new Promise((resolve) => {
    const child = spawn(ctx.backend, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { if (stderr.length < 8192) stderr += d.toString('utf8'); });
    child.stdin.on('error', () => { /* the CGI may exit before reading everything (an error reply) */ });
    req.pipe(child.stdin);

    let head = Buffer.alloc(0);
    let headersSent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) { res.write(chunk); return; }
      head = Buffer.concat([head, chunk]);
      const crlf = head.indexOf('\r\n\r\n');
      const lf = head.indexOf('\n\n');
      const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf : lf;
      if (end < 0) return;
      const sep = end === crlf ? 4 : 2;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      headersSent = true;
      const rest = head.subarray(end + sep);
      if (rest.length > 0) res.write(rest);
    });
    let spawnFailed = false;
    child.on('error', (err) => {
      spawnFailed = true;
      ctx.log(`github-standin: cannot run ${ctx.backend}: ${err.message}`);
      if (!res.headersSent) plain(res, 500, 'git http-backend could not start', false);
      else res.end();
      resolve();
    });
    child.on('close', (code) => {
      if (spawnFailed) return;
      if (code !== 0) ctx.log(`github-standin: git http-backend exited ${code}: ${stderr.trim()}`);
      void beforeEnd()
        .catch((err: Error) => ctx.log(`github-standin: reading pushes failed: ${err.message}`))
        .finally(() => {
          if (!headersSent) plain(res, 500, `git http-backend exited ${code}`, false);
          else res.end();
          resolve();
        });
    });
  });
}
