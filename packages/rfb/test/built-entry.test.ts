/** The built package as a consumer imports it: the root entry resolves to dist/; no stand-in ships with it. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dist = (f: string) => fileURLToPath(new URL(`../dist/${f}`, import.meta.url));

test('rfb: the built entry exports the client API, and nothing else (the ARD stand-in is @vmhub/ard-standin)', { skip: existsSync(dist('index.js')) ? undefined : 'build @vmhub/rfb first' }, async () => {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'));
  assert.equal(pkg.exports['.'].default, './dist/index.js');
  assert.deepEqual(Object.keys(pkg.exports), ['.'], 'one entry: the client');
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}), [], 'no runtime dependencies');
  const m = await import(dist('index.js'));
  for (const name of ['connectRfb', 'RfbClient', 'RfbError', 'keysymFor', 'keysymForChar', 'parseCombo', 'vncAuthResponse', 'ardResponse', 'ENCODINGS', 'offeredEncodings']) {
    assert.ok(name in m, name);
  }
  assert.equal(m.keysymFor('Return'), 0xff0d);
});
