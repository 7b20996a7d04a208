/**
 * The REST operations: installation lookup, minting down-scoped tokens (and GitHub's 422s),
 * revoking; the records tests read; every response checked against GitHub's schema.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { GITHUB_MESSAGES, type GithubStandin } from '../src/index.ts';
import { APP_ID, INSTALLATION_ID, api, jwt, mint, standin } from './helpers.ts';

const MINT_DOCS = 'https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app';

describe('github-standin: REST API', () => {
  let s: GithubStandin;
  const bearer = () => `Bearer ${jwt()}`;

  before(async () => { s = await standin(); });
  after(async () => { await s.close(); });

  it('apiUrl is http://127.0.0.1:<port>/api/v3; paths outside the three operations answer 404 Not Found', async () => {
    assert.equal(s.apiUrl, `http://127.0.0.1:${s.port}/api/v3`);
    const r = await api(s, 'GET', '/app', { auth: bearer() });
    assert.equal(r.status, 404);
    assert.equal(r.body.message, 'Not Found');
    const root = await fetch(`http://127.0.0.1:${s.port}/repos/acme/widgets/installation`);
    assert.equal(root.status, 404, 'the API is only under /api/v3');
  });

  it('GET /repos/{owner}/{repo}/installation → 200 with the installation (any letter case)', async () => {
    const r = await api(s, 'GET', '/repos/Acme/Widgets/installation', { auth: bearer() });
    assert.equal(r.status, 200);
    assert.equal(r.body.id, INSTALLATION_ID);
    assert.equal(r.body.app_id, APP_ID);
    assert.equal(r.body.account.login, 'acme');
    assert.equal(r.body.account.type, 'Organization');
    assert.equal(r.body.access_tokens_url, `${s.apiUrl}/app/installations/${INSTALLATION_ID}/access_tokens`);
    assert.deepEqual(r.body.permissions, { contents: 'write', pull_requests: 'write', metadata: 'read' });
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
  });

  it('GET /repos/{owner}/{repo}/installation → 404 where the App is not installed', async () => {
    const r = await api(s, 'GET', '/repos/acme/secret/installation', { auth: bearer() });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/apps/apps#get-a-repository-installation-for-the-authenticated-app', status: '404' });
  });

  it('POST …/access_tokens → 201, a token down-scoped to one repository and contents:write', async () => {
    const before = Date.now();
    const r = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), body: { repositories: ['widgets'], permissions: { contents: 'write', pull_requests: 'write' } } });
    assert.equal(r.status, 201);
    assert.match(r.body.token, /^ghs_[A-Za-z0-9]{36}$/);
    assert.deepEqual(r.body.permissions, { contents: 'write', pull_requests: 'write' });
    assert.equal(r.body.repository_selection, 'selected');
    assert.deepEqual(r.body.repositories.map((x: any) => x.full_name), ['acme/widgets']);
    const expires = Date.parse(r.body.expires_at);
    assert.ok(expires >= before + 3_590_000 && expires <= Date.now() + 3_600_000, `expires_at ${r.body.expires_at} is one hour ahead`);
    assert.match(r.body.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const rec = s.tokens.at(-1)!;
    assert.equal(rec.token, r.body.token);
    assert.deepEqual({ ...rec, createdAt: undefined }, { redacted: `ghs_…${r.body.token.slice(-4)}`, installationId: INSTALLATION_ID, repositories: ['acme/widgets'], permissions: { contents: 'write', pull_requests: 'write' }, createdAt: undefined, expiresAt: r.body.expires_at });
  });

  it('a token record does not print its token', async () => {
    const token = await mint(s, ['gadgets']);
    const rec = s.tokens.at(-1)!;
    assert.ok(!inspect(s.tokens).includes(token));
    assert.ok(!JSON.stringify(s.tokens).includes(token));
    assert.equal(rec.token, token);
  });

  it('without repositories/permissions the token gets the whole installation', async () => {
    const r = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer() });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.repositories.map((x: any) => x.full_name), ['acme/widgets', 'acme/gadgets', 'acme/other']);
    assert.deepEqual(r.body.permissions, { contents: 'write', pull_requests: 'write', metadata: 'read' });
  });

  it('repository_ids select repositories by the ids the responses carry', async () => {
    const all = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), body: {} });
    const gadgets = all.body.repositories.find((x: any) => x.name === 'gadgets');
    const r = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), body: { repository_ids: [gadgets.id] } });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.repositories.map((x: any) => x.full_name), ['acme/gadgets']);
  });

  it('a repository outside the installation → 422', async () => {
    const n = s.tokens.length;
    const r = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), body: { repositories: ['widgets', 'secret'] } });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, { message: GITHUB_MESSAGES.repositoryNotAccessible, documentation_url: MINT_DOCS, status: '422' });
    const byId = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), body: { repository_ids: [999999] } });
    assert.equal(byId.status, 422);
    assert.equal(s.tokens.length, n, 'no token minted');
  });

  it('permissions beyond the App’s → 422', async () => {
    for (const permissions of [{ issues: 'read' }, { metadata: 'write' }, { contents: 'write', workflows: 'write' }]) {
      const r = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), body: { repositories: ['widgets'], permissions } });
      assert.equal(r.status, 422, JSON.stringify(permissions));
      assert.equal(r.body.message, GITHUB_MESSAGES.permissionsNotGranted);
    }
    const notInSchema = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), body: { permissions: { contents: 'admin' } } });
    assert.equal(notInSchema.status, 422, 'contents: admin is not a level the schema allows');
    assert.match(notInSchema.body.message, /^Invalid request\./);
    const down = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), body: { repositories: ['widgets'], permissions: { contents: 'read' } } });
    assert.equal(down.status, 201, 'a lower level is fine');
  });

  it('an unknown installation → 404; a non-numeric installation_id → 404 and a request violation', async () => {
    assert.equal((await api(s, 'POST', '/app/installations/12345/access_tokens', { auth: bearer(), body: {} })).status, 404);
    const r = await api(s, 'POST', '/app/installations/abc/access_tokens', { auth: bearer(), body: {} });
    assert.equal(r.status, 404);
    assert.equal(s.requestViolations.at(-1)?.where, 'path');
  });

  it('a body that breaks the schema → 422 "Invalid request."; bad JSON → 400 "Problems parsing JSON"', async () => {
    const bad = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), body: { repositories: 'widgets', permissions: { contents: 'sometimes' } } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /^Invalid request\.\n\n/);
    assert.equal(s.requestViolations.at(-1)?.where, 'body');
    const json = await api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: bearer(), rawBody: '{"repositories": [' });
    assert.equal(json.status, 400);
    assert.equal(json.body.message, 'Problems parsing JSON');
  });

  it('DELETE /installation/token → 204, then 401 for the same token; `Bearer` works too', async () => {
    const token = await mint(s, ['widgets']);
    const index = s.tokens.length - 1;
    const first = await api(s, 'DELETE', '/installation/token', { auth: `token ${token}` });
    assert.equal(first.status, 204);
    assert.equal(first.body, undefined);
    assert.ok(s.tokens[index]!.revokedAt);
    assert.deepEqual(s.revocations.at(-1), { index, installationId: INSTALLATION_ID, redacted: s.tokens[index]!.redacted, at: s.tokens[index]!.revokedAt });
    const again = await api(s, 'DELETE', '/installation/token', { auth: `token ${token}` });
    assert.equal(again.status, 401);
    assert.deepEqual(again.body, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });

    const other = await mint(s, ['widgets']);
    assert.equal((await api(s, 'DELETE', '/installation/token', { auth: `Bearer ${other}` })).status, 204);
    assert.equal((await api(s, 'DELETE', '/installation/token', { auth: 'token ghs_unknown' })).status, 401);
    assert.equal((await api(s, 'DELETE', '/installation/token')).status, 401);
  });

  it('an expired token cannot revoke itself (401)', async () => {
    const token = await mint(s, ['widgets']);
    s.expire(token);
    assert.ok(Date.parse(s.tokens.at(-1)!.expiresAt) < Date.now());
    assert.equal((await api(s, 'DELETE', '/installation/token', { auth: `token ${token}` })).status, 401);
  });

  it('requests are recorded without Authorization headers or tokens', () => {
    const text = JSON.stringify(s.requests);
    for (const t of s.tokens) assert.ok(!text.includes(t.token));
    assert.ok(!/Bearer|authorization/i.test(text));
    const r = s.requests.find((x) => x.operation === 'apps/revoke-installation-access-token');
    assert.deepEqual(Object.keys(r!).sort(), ['at', 'method', 'operation', 'path', 'status']);
    assert.equal(r!.path, '/api/v3/installation/token');
  });

  it('every response matched GitHub’s schema', () => {
    assert.deepEqual(s.schemaViolations, []);
  });
});
