import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { CONTRACT_VERSION } from './define.ts';
import { discoverPlugins } from './plugins.ts';

const root = mkdtempSync(join(tmpdir(), 'vmhub-plugins-'));
after(() => rmSync(root, { recursive: true, force: true }));

function pkg(name: string, body: string, version = '1.2.3') {
  const dir = join(root, 'node_modules', ...name.split('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version, type: 'module', exports: { '.': './index.js' } }));
  writeFileSync(join(dir, 'index.js'), body);
}
const plugin = (kind: string, id: string, contract = CONTRACT_VERSION) => `export default { kind: '${kind}', id: '${id}', version: '1', contractVersion: ${contract}, capabilities: [], verbs: [], templates: [], create() { return {}; } };`;

mkdirSync(join(root, 'app'), { recursive: true });
writeFileSync(join(root, 'app', 'package.json'), JSON.stringify({ name: 'app', dependencies: { '@vmhub/provider-dep': '1' } }));
pkg('@vmhub/provider-dep', plugin('provider', 'dep'));
pkg('vmhub-adapter-scanned', plugin('adapter', 'scanned'));
pkg('@vmhub/adapter-old', plugin('adapter', 'old', 0));
pkg('@vmhub/adapter-broken', `throw new Error('broken at import');`);
pkg('named-by-config', `export default [${plugin('adapter', 'named').replace('export default ', '').replace(/;$/, '')}];`);
pkg('not-a-plugin', `export default 42;`);
const from = pathToFileURL(join(root, 'app', 'index.js')).href;

describe('core: plugin discovery', () => {
  it('finds dependencies, installed vmhub-* packages and named packages, with versions', async () => {
    const found = await discoverPlugins({ from, names: ['named-by-config'] });
    const ok = Object.fromEntries(found.filter((p) => !p.error).map((p) => [p.package, p.plugins.map((x) => x.id)]));
    assert.deepEqual(ok['@vmhub/provider-dep'], ['dep']);
    assert.deepEqual(ok['vmhub-adapter-scanned'], ['scanned']);
    assert.deepEqual(ok['named-by-config'], ['named']);
    assert.equal(found.find((p) => p.package === '@vmhub/provider-dep')?.version, '1.2.3');
  });
  it('reports broken, incompatible, missing and non-plugin packages instead of throwing', async () => {
    const found = await discoverPlugins({ from, names: ['not-a-plugin', 'not-installed-anywhere'] });
    const error = (name: string) => found.find((p) => p.package === name)?.error ?? '';
    assert.match(error('@vmhub/adapter-old'), /contract version 0/);
    assert.match(error('@vmhub/adapter-broken'), /broken at import/);
    assert.match(error('not-a-plugin'), /defineAdapter\/defineProvider/);
    assert.match(error('not-installed-anywhere'), /is not installed/);
  });
  it('loads only the kinds asked for (the reaper asks for providers)', async () => {
    const found = await discoverPlugins({ from, kinds: ['provider'] });
    assert.deepEqual(found.map((p) => p.package), ['@vmhub/provider-dep']);
  });
});
