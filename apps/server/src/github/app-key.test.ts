// The GitHub App's identity: every bad config names its key; the JWT is RS256 with GitHub's claims.
import assert from 'node:assert/strict';
import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadAppIdentity } from './app-key.ts';
import { appJwt } from './app-jwt.ts';
import { githubRepo } from './repo-url.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-gh-key-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const keyFile = join(dir, 'app.pem');
writeFileSync(keyFile, pem, { mode: 0o600 });

const refusal = (fn: () => unknown, key: string, what: RegExp) => assert.throws(fn, (err: Error & { code?: string }) => {
  assert.equal(err.code, 'INVALID_REQUEST');
  assert.match(err.message, new RegExp(`^github_app\\.${key}: `));
  assert.match(err.message, what);
  assert.ok(!err.message.includes('PRIVATE KEY') && !err.message.includes(pem.slice(40, 80)), 'never quotes the key');
  return true;
});

describe('github app: identity', () => {
  it('reads the key from a file or an env var (with \\n escapes)', () => {
    assert.equal(loadAppIdentity({ app_id: 123, private_key_file: keyFile }).appId, 123);
    assert.equal(loadAppIdentity({ app_id: '77', private_key_env: 'K' }, { K: pem.replace(/\n/g, '\\n') }).key.asymmetricKeyType, 'rsa');
  });

  it('bad input names the config key and never the key material', () => {
    refusal(() => loadAppIdentity({ app_id: 'my-app', private_key_file: keyFile }), 'app_id', /"my-app" is not a number/);
    refusal(() => loadAppIdentity({ app_id: 1 }), 'private_key_file', /exactly one/);
    refusal(() => loadAppIdentity({ app_id: 1, private_key_file: join(dir, 'absent.pem') }), 'private_key_file', /cannot read .*ENOENT/);
    refusal(() => loadAppIdentity({ app_id: 1, private_key_env: 'NOPE' }, {}), 'private_key_env', /NOPE is not set/);
    const broken = join(dir, 'broken.pem');
    writeFileSync(broken, pem.slice(0, 200) + '\n-----END RSA PRIVATE KEY-----\n');
    refusal(() => loadAppIdentity({ app_id: 1, private_key_file: broken }), 'private_key_file', /no private key in PEM form/);
    const ed = join(dir, 'ed.pem');
    writeFileSync(ed, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    refusal(() => loadAppIdentity({ app_id: 1, private_key_file: ed }), 'private_key_file', /ed25519 key; GitHub App keys are RSA/);
  });

  it('the JWT is RS256 with iat 60 s back, exp 9 min ahead, iss the App id', () => {
    const now = 1_700_000_000_000;
    const jwt = appJwt(loadAppIdentity({ app_id: 42, private_key_file: keyFile }), now);
    const [h, p, sig] = jwt.split('.');
    assert.deepEqual(JSON.parse(Buffer.from(h!, 'base64url').toString()), { alg: 'RS256', typ: 'JWT' });
    assert.deepEqual(JSON.parse(Buffer.from(p!, 'base64url').toString()), { iat: 1_700_000_000 - 60, exp: 1_700_000_000 + 540, iss: 42 });
    assert.ok(verify('sha256', Buffer.from(`${h}.${p}`), rsa.publicKey, Buffer.from(sig!, 'base64url')));
  });
});

describe('github app: which repository a URL names', () => {
  it('github.com by default, the API host for GHES, web_host when given', () => {
    assert.deepEqual(githubRepo('https://github.com/acme/app.git', undefined, undefined), { owner: 'acme', repo: 'app', url: 'https://github.com/acme/app.git', scope: 'github.com/acme/app' });
    assert.equal(githubRepo('https://github.com/acme/app', undefined, undefined).url, 'https://github.com/acme/app');
    assert.equal(githubRepo('https://ghe.corp/acme/app.git', 'https://ghe.corp/api/v3', undefined).scope, 'ghe.corp/acme/app');
    assert.equal(githubRepo('http://172.17.0.1:9000/a/b.git', 'http://172.17.0.1:9000', undefined).repo, 'b');
  });

  it('anything else is INVALID_REQUEST saying why', () => {
    for (const [url, why] of [
      ['git@github.com:acme/app.git', /not an https URL/],
      ['ssh://git@github.com/acme/app.git', /ssh:\/\/ URLs cannot carry the token/],
      ['https://gitlab.com/acme/app.git', /gitlab.com is another host/],
      ['https://github.com/acme', /is not \/<owner>\/<repo>/],
      ['https://github.com/acme/app/tree/main', /is not \/<owner>\/<repo>/],
      ['https://x:y@github.com/acme/app.git', /userinfo/],
    ] as const) {
      assert.throws(() => githubRepo(url, undefined, undefined), (err: Error & { code?: string }) => err.code === 'INVALID_REQUEST' && why.test(err.message) && /push: true needs a repository on github.com/.test(err.message), url);
    }
  });
});
