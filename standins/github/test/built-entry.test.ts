/** The built package as other packages' tests load it: private, dist/index.js, the subset beside it. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('github-standin: package shape', () => {
  it('is private and ships dist/ with openapi/', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(pkg.private, true, 'a stand-in is never published');
    assert.equal(pkg.exports['.'].default, './dist/index.js');
    assert.deepEqual(pkg.files, ['dist', 'openapi']);
  });

  it('the built entry exports the API and finds the subset', { skip: existsSync(dist) ? undefined : 'build @vmhub/github-standin first' }, async () => {
    assert.equal(fileURLToPath(import.meta.resolve('@vmhub/github-standin')), dist);
    const m: typeof import('../src/index.ts') = await import(pathToFileURL(dist).href);
    for (const name of ['startGithubStandin', 'makeAppKeyPair', 'signAppJwt']) assert.equal(typeof (m as Record<string, unknown>)[name], 'function', name);
    const keys = m.makeAppKeyPair();
    assert.match(keys.privateKeyPem, /^-----BEGIN RSA PRIVATE KEY-----\n/);
    assert.match(keys.publicKeyPem, /^-----BEGIN PUBLIC KEY-----\n/);
    const s = await m.startGithubStandin({ app: { id: 1, publicKeyPem: keys.publicKeyPem }, log: () => {} });
    try {
      const r = await fetch(`${s.apiUrl}/repos/a/b/installation`, { headers: { authorization: `Bearer ${m.signAppJwt(keys.privateKeyPem, 1)}` } });
      assert.equal(r.status, 404);
    } finally {
      await s.close();
    }
  });
});
