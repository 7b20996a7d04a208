/**
 * App authentication: the stand-in verifies the JWT for real (RS256 with the App's public key,
 * iss, iat, exp) and refuses with GitHub's 401 bodies and messages.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GITHUB_MESSAGES, makeAppKeyPair, signAppJwt, type GithubStandin } from '../src/index.ts';
import { APP_ID, api, jwt, keys, standin } from './helpers.ts';

describe('github-standin: App JWT', () => {
  let s: GithubStandin;
  const now = () => Math.floor(Date.now() / 1000);
  const lookup = (auth?: string) => api(s, 'GET', '/repos/acme/widgets/installation', { auth });

  before(async () => { s = await standin({ app: { id: APP_ID, clientId: 'Iv23liTestClient', publicKeyPem: keys.publicKeyPem } }); });
  after(async () => { await s.close(); });

  it('accepts iss as a number, as a decimal string, and as the client ID', async () => {
    assert.equal((await lookup(`Bearer ${jwt()}`)).status, 200);
    assert.equal((await lookup(`Bearer ${jwt({ iss: String(APP_ID) })}`)).status, 200);
    assert.equal((await lookup(`Bearer ${jwt({ iss: 'Iv23liTestClient' })}`)).status, 200);
  });

  it('accepts an App made from the private key alone, and iat up to 60 s ahead', async () => {
    const t = await standin({ app: { id: APP_ID, privateKeyPem: keys.privateKeyPem } });
    try {
      const r = await api(t, 'GET', '/repos/acme/widgets/installation', { auth: `Bearer ${jwt({ iat: now() + 50, exp: now() + 500 })}` });
      assert.equal(r.status, 200);
    } finally {
      await t.close();
    }
  });

  const refusals: [string, () => string | undefined, string][] = [
    ['no Authorization header', () => undefined, GITHUB_MESSAGES.jwtUndecodable],
    ['a malformed token', () => 'Bearer not-a-jwt', GITHUB_MESSAGES.jwtUndecodable],
    ['two parts only', () => `Bearer ${jwt().split('.').slice(0, 2).join('.')}`, GITHUB_MESSAGES.jwtUndecodable],
    ['alg HS256 in the header', () => `Bearer ${jwt({ alg: 'HS256' })}`, GITHUB_MESSAGES.jwtUndecodable],
    ['a signature by another key', () => `Bearer ${signAppJwt(makeAppKeyPair().privateKeyPem, APP_ID)}`, GITHUB_MESSAGES.jwtUndecodable],
    ['the wrong iss', () => `Bearer ${jwt({ iss: APP_ID + 1 })}`, GITHUB_MESSAGES.integrationNotFound],
    ['an expired token', () => `Bearer ${jwt({ iat: now() - 700, exp: now() - 100 })}`, GITHUB_MESSAGES.jwtExpPast],
    ['exp more than 10 minutes after iat', () => `Bearer ${jwt({ iat: now() - 10, exp: now() + 600 })}`, GITHUB_MESSAGES.jwtExpTooFar],
    ['iat more than 60 s in the future', () => `Bearer ${jwt({ iat: now() + 120, exp: now() + 300 })}`, GITHUB_MESSAGES.jwtIat],
    ['an installation-token scheme', () => 'token ghs_abcdefghijklmnopqrstuvwxyz0123456789', GITHUB_MESSAGES.jwtUndecodable],
  ];
  for (const [what, auth, message] of refusals) {
    it(`refuses ${what}: 401 "${message}"`, async () => {
      const r = await lookup(auth());
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { message, documentation_url: 'https://docs.github.com/rest', status: '401' });
    });
  }

  it('the mint endpoint checks the JWT the same way', async () => {
    const r = await api(s, 'POST', '/app/installations/77/access_tokens', { auth: `Bearer ${jwt({ iat: now() - 10, exp: now() + 900 })}`, body: {} });
    assert.equal(r.status, 401);
    assert.equal(r.body.message, GITHUB_MESSAGES.jwtExpTooFar);
    assert.equal(s.tokens.length, 0);
  });

  it('left no schema violations', () => {
    assert.deepEqual(s.schemaViolations, []);
  });
});
