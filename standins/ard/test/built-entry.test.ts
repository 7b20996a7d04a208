/** The built stand-in as the macos-standin golden and the tests take it: one self-contained file, the package's entry. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dist = (f: string) => fileURLToPath(new URL(`../dist/${f}`, import.meta.url));

test('ard-standin: private; the entry is dist/ard-standin.js, importing only node: builtins', { skip: existsSync(dist('ard-standin.js')) ? undefined : 'build @vmhub/ard-standin first' }, async () => {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'));
  assert.equal(pkg.private, true, 'a stand-in is never published');
  assert.equal(pkg.exports['.'].default, './dist/ard-standin.js');
  assert.equal(fileURLToPath(import.meta.resolve('@vmhub/ard-standin')), dist('ard-standin.js'));
  const imports = [...readFileSync(dist('ard-standin.js'), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
  assert.ok(imports.length > 0 && imports.every((s) => s!.startsWith('node:')), `only node: builtins: ${imports.join(', ')}`);
  const standin = await import(dist('ard-standin.js'));
  assert.equal(typeof standin.startArdStandin, 'function');
  assert.deepEqual(standin.parseArgs(['--username', 'u', '--password', 'p']).listen, { host: '0.0.0.0', port: 5900 });
});
