/**
 * failNext: the next request to an operation answers the injected status with GitHub's error
 * body shape, then the operation works again; injections queue in order.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { GithubStandin } from '../src/index.ts';
import { INSTALLATION_ID, api, jwt, mint, standin } from './helpers.ts';

describe('github-standin: failNext', () => {
  let s: GithubStandin;
  const lookup = () => api(s, 'GET', '/repos/acme/widgets/installation', { auth: `Bearer ${jwt()}` });
  const mintReq = () => api(s, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, { auth: `Bearer ${jwt()}`, body: { repositories: ['widgets'] } });

  before(async () => { s = await standin(); });
  after(async () => { await s.close(); });

  const cases: [Parameters<GithubStandin['failNext']>[0], number, string | undefined, string][] = [
    ['lookup', 404, undefined, 'Not Found'],
    ['apps/get-repo-installation', 401, undefined, 'Bad credentials'],
    ['lookup', 403, 'Resource not accessible by integration', 'Resource not accessible by integration'],
    ['lookup', 500, undefined, 'Server Error'],
    ['mint', 422, undefined, 'Validation Failed'],
    ['mint', 403, 'You have exceeded a secondary rate limit', 'You have exceeded a secondary rate limit'],
    ['apps/create-installation-access-token', 500, undefined, 'Server Error'],
    ['revoke', 401, undefined, 'Bad credentials'],
  ];
  for (const [op, status, message, expected] of cases) {
    it(`failNext('${op}', ${status}) → ${status} { message: "${expected}" }, then normal again`, async () => {
      s.failNext(op, status, message);
      const call = op === 'lookup' || op === 'apps/get-repo-installation' ? lookup
        : op === 'revoke' ? async () => api(s, 'DELETE', '/installation/token', { auth: `token ${await mint(s, ['widgets'])}` })
        : mintReq;
      const r = await call();
      assert.equal(r.status, status);
      assert.equal(r.body.message, expected);
      assert.equal(r.body.status, String(status));
      assert.match(r.body.documentation_url, /^https:\/\/docs\.github\.com\/rest\//);
      assert.deepEqual(Object.keys(r.body).sort(), ['documentation_url', 'message', 'status']);
      const next = await call();
      assert.ok(next.status === 200 || next.status === 201 || next.status === 204, `next call is normal (${next.status})`);
    });
  }

  it('injections queue in order and only hit their operation', async () => {
    s.failNext('mint', 500);
    s.failNext('mint', 422);
    assert.equal((await lookup()).status, 200);
    assert.equal((await mintReq()).status, 500);
    assert.equal((await mintReq()).status, 422);
    assert.equal((await mintReq()).status, 201);
  });

  it('refuses unknown operations and non-error statuses', () => {
    assert.throws(() => s.failNext('apps/list-installations' as never, 500), /unknown operation/);
    assert.throws(() => s.failNext('mint', 200), /4xx or 5xx/);
  });

  it('injected responses match GitHub’s schema too', () => {
    assert.deepEqual(s.schemaViolations, []);
  });
});
