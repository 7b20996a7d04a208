/**
 * The REST half: the three operations of openapi/github-subset.json, under `/api/v3`.
 *
 * Every request: route by method + path template → injected failure (`failNext`) if one is queued
 * → path parameters checked against their schemas (a mismatch is GitHub's 404) → authentication →
 * body parsed (`Problems parsing JSON`, 400) and checked against the requestBody schema (422
 * "Invalid request.") → the operation. Every response body is checked against the operation's
 * response schema before it is sent; one that fails is recorded in `schemaViolations`, logged, and
 * replaced by a 500 — the stand-in is wrong, not the client.
 *
 *   GET    /repos/{owner}/{repo}/installation          (JWT) 200 installation | 404
 *   POST   /app/installations/{installation_id}/access_tokens
 *                                                      (JWT) 201 token | 404 | 422
 *   DELETE /installation/token                         (`token <t>` or `Bearer <t>`) 204 | 401
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { MESSAGES, REST_DOCS, githubError } from './errors.ts';
import { verifyAppJwt, type JwtApp } from './jwt.ts';
import type { CompiledOperation } from './openapi.ts';
import type { TokenStore } from './tokens.ts';
import type { OperationId, PermissionLevel, Permissions, RequestRecord, RequestViolation, SchemaViolation } from './types.ts';
import { installationJson, repositoryJson, type AccountInfo, type Urls } from './wire.ts';

export const API_PREFIX = '/api/v3';
const MAX_BODY = 1 << 20;
const RANK: Record<PermissionLevel, number> = { read: 1, write: 2, admin: 3 };

export interface Installation {
  id: number;
  account: AccountInfo;
  /** Canonical full names as configured. */
  repositories: string[];
  permissions: Permissions;
}

export interface ApiContext {
  urls: Urls;
  ops: CompiledOperation[];
  app: JwtApp & { slug: string };
  installations: Installation[];
  tokens: TokenStore;
  now: () => number;
  createdAt: string;
  repoId: (fullName: string) => number;
  repoById: (id: number) => string | undefined;
  account: (login: string) => AccountInfo;
  takeFailure: (op: OperationId) => { status: number; message: string } | undefined;
  schemaViolations: SchemaViolation[];
  requestViolations: RequestViolation[];
  log: (line: string) => void;
}

type Reply = { status: number; body?: unknown };

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) { reject(new Error('body too large')); req.destroy(); return; }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, op: CompiledOperation | undefined, reply: Reply, ctx: ApiContext): void {
  const problem = op ? op.checkResponse(reply.status, reply.body) : undefined;
  let { status, body } = reply;
  if (problem !== undefined) {
    ctx.schemaViolations.push({ operation: op!.id, status, errors: problem });
    ctx.log(`github-standin: BUG: ${op!.id} ${status} does not match GitHub's schema: ${problem}`);
    status = 500;
    body = githubError(500, `github-standin: its ${op!.id} ${reply.status} response failed GitHub's schema: ${problem}`);
  }
  const headers: Record<string, string> = {
    'X-GitHub-Media-Type': 'github.v3; format=json',
    'X-GitHub-Api-Version-Selected': '2022-11-28',
    'X-GitHub-Request-Id': randomBytes(8).toString('hex').toUpperCase(),
  };
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** The credential after `scheme ` in the Authorization header, for any of `schemes` (case-insensitive). */
function credential(req: IncomingMessage, schemes: string[]): string | undefined {
  const m = /^(\S+)\s+(\S+)\s*$/.exec(req.headers.authorization ?? '');
  return m && schemes.includes(m[1]!.toLowerCase()) ? m[2] : undefined;
}

function appAuth(req: IncomingMessage, ctx: ApiContext): Reply | undefined {
  const jwt = credential(req, ['bearer']);
  if (jwt === undefined) return { status: 401, body: githubError(401, MESSAGES.jwtUndecodable) };
  const check = verifyAppJwt(jwt, ctx.app, Math.floor(ctx.now() / 1000));
  return check.ok ? undefined : { status: 401, body: githubError(401, check.message) };
}

function lookup(params: Record<string, string | number>, op: CompiledOperation, ctx: ApiContext): Reply {
  const fullName = `${params.owner}/${params.repo}`.toLowerCase();
  const inst = ctx.installations.find((i) => i.repositories.some((r) => r.toLowerCase() === fullName));
  if (!inst) return { status: 404, body: githubError(404, MESSAGES.notFound, op.docsUrl) };
  return { status: 200, body: installationJson(ctx.urls, { id: inst.id, account: inst.account, appId: ctx.app.id, appSlug: ctx.app.slug, clientId: ctx.app.clientId, permissions: inst.permissions, createdAt: ctx.createdAt }) };
}

function mint(params: Record<string, string | number>, body: any, op: CompiledOperation, ctx: ApiContext): Reply {
  const inst = ctx.installations.find((i) => i.id === params.installation_id);
  if (!inst) return { status: 404, body: githubError(404, MESSAGES.notFound, op.docsUrl) };
  const unprocessable = (message: string): Reply => ({ status: 422, body: githubError(422, message, op.docsUrl) });

  let repositories = inst.repositories;
  const names: string[] = body?.repositories ?? [];
  const ids: number[] = body?.repository_ids ?? [];
  if (names.length > 0 || ids.length > 0) {
    const chosen = new Set<string>();
    for (const name of names) {
      const hit = inst.repositories.find((r) => r.toLowerCase() === `${inst.account.login}/${name}`.toLowerCase());
      if (!hit) return unprocessable(MESSAGES.repositoryNotAccessible);
      chosen.add(hit);
    }
    for (const id of ids) {
      const fullName = ctx.repoById(id);
      const hit = fullName && inst.repositories.find((r) => r.toLowerCase() === fullName.toLowerCase());
      if (!hit) return unprocessable(MESSAGES.repositoryNotAccessible);
      chosen.add(hit);
    }
    repositories = [...chosen];
  }

  let permissions: Permissions = { ...inst.permissions };
  if (body?.permissions && Object.keys(body.permissions).length > 0) {
    permissions = {};
    for (const [name, level] of Object.entries<PermissionLevel>(body.permissions)) {
      const granted = inst.permissions[name];
      if (!granted || RANK[level] > RANK[granted]) return unprocessable(MESSAGES.permissionsNotGranted);
      permissions[name] = level;
    }
  }

  const record = ctx.tokens.mint({ installationId: inst.id, repositories, permissions });
  return {
    status: 201,
    body: {
      token: record.token,
      expires_at: record.expiresAt,
      permissions: { ...permissions },
      repository_selection: 'selected',
      repositories: repositories.map((fullName) => repositoryJson(ctx.urls, { fullName, id: ctx.repoId(fullName), owner: ctx.account(fullName.split('/')[0]!), createdAt: ctx.createdAt })),
    },
  };
}

function revoke(req: IncomingMessage, ctx: ApiContext): Reply {
  const token = credential(req, ['token', 'bearer']);
  if (token === undefined || !ctx.tokens.live(token)) return { status: 401, body: githubError(401, MESSAGES.badCredentials) };
  ctx.tokens.revoke(token);
  return { status: 204 };
}

/** Answers one request under API_PREFIX; `record` gets its operation filled in. */
export async function handleApi(req: IncomingMessage, res: ServerResponse, path: string, record: RequestRecord, ctx: ApiContext): Promise<void> {
  let op: CompiledOperation | undefined;
  let raw: Record<string, string> | undefined;
  for (const candidate of ctx.ops) {
    if (candidate.method !== req.method) continue;
    raw = candidate.match(path);
    if (raw) { op = candidate; break; }
  }
  if (!op || !raw) {
    req.resume();
    send(res, undefined, { status: 404, body: githubError(404, MESSAGES.notFound, REST_DOCS) }, ctx);
    return;
  }
  record.operation = op.id;

  const injected = ctx.takeFailure(op.id);
  if (injected) {
    req.resume();
    send(res, op, { status: injected.status, body: githubError(injected.status, injected.message, op.docsUrl) }, ctx);
    return;
  }

  const { params, errors: paramErrors } = op.checkParams(raw);
  if (paramErrors) {
    req.resume();
    ctx.requestViolations.push({ operation: op.id, where: 'path', errors: paramErrors });
    send(res, op, { status: 404, body: githubError(404, MESSAGES.notFound, REST_DOCS) }, ctx);
    return;
  }

  if (op.id !== 'apps/revoke-installation-access-token') {
    const denied = appAuth(req, ctx);
    if (denied) { req.resume(); send(res, op, denied, ctx); return; }
  }

  let body: unknown;
  if (op.hasBody) {
    let text: string;
    try {
      text = await readBody(req);
    } catch {
      send(res, op, { status: 413, body: githubError(413, 'Payload too large', REST_DOCS) }, ctx);
      return;
    }
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        send(res, op, { status: 400, body: githubError(400, MESSAGES.problemsParsingJson, op.docsUrl) }, ctx);
        return;
      }
      const bodyErrors = op.checkBody(body);
      if (bodyErrors) {
        ctx.requestViolations.push({ operation: op.id, where: 'body', errors: bodyErrors });
        send(res, op, { status: 422, body: githubError(422, `Invalid request.\n\n${bodyErrors}`, op.docsUrl) }, ctx);
        return;
      }
    }
  } else {
    req.resume();
  }

  switch (op.id) {
    case 'apps/get-repo-installation': send(res, op, lookup(params, op, ctx), ctx); return;
    case 'apps/create-installation-access-token': send(res, op, mint(params, body, op, ctx), ctx); return;
    case 'apps/revoke-installation-access-token': send(res, op, revoke(req, ctx), ctx); return;
  }
}
