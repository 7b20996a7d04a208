import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
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

// The app is installed as npm lays it out: beside its dependencies, in the same node_modules.
mkdirSync(join(root, 'node_modules', 'app'), { recursive: true });
writeFileSync(join(root, 'node_modules', 'app', 'package.json'), JSON.stringify({ name: 'app', dependencies: { '@vmhub/provider-dep': '1' } }));
pkg('@vmhub/provider-dep', plugin('provider', 'dep'));
pkg('vmhub-adapter-scanned', plugin('adapter', 'scanned'));
pkg('@team/vmhub-adapter-scoped', plugin('adapter', 'scoped'));
pkg('@team/unrelated', `throw new Error('a package not named vmhub-* is never imported');`);
pkg('@vmhub/adapter-old', plugin('adapter', 'old', 0));
pkg('@vmhub/adapter-broken', `throw new Error('broken at import');`);
pkg('named-by-config', `export default [${plugin('adapter', 'named').replace('export default ', '').replace(/;$/, '')}];`);
pkg('not-a-plugin', `export default 42;`);
const from = pathToFileURL(join(root, 'node_modules', 'app', 'index.js')).href;

describe('core: plugin discovery', () => {
  it('finds dependencies, installed vmhub-* packages and named packages, with versions', async () => {
    const found = await discoverPlugins({ from, names: ['named-by-config'] });
    const ok = Object.fromEntries(found.filter((p) => !p.error).map((p) => [p.package, p.plugins.map((x) => x.id)]));
    assert.deepEqual(ok['@vmhub/provider-dep'], ['dep']);
    assert.deepEqual(ok['vmhub-adapter-scanned'], ['scanned']);
    assert.deepEqual(ok['@team/vmhub-adapter-scoped'], ['scoped'], 'vmhub-adapter-* in any scope');
    assert.equal(found.some((p) => p.package === '@team/unrelated'), false);
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

// The copy-me adapter template, built with its own tsc as its author would, then named three
// ways: by package name (installed in node_modules), by its directory and by its entry file.
describe('core: the adapter template loaded by name, directory and entry file', () => {
  const area = mkdtempSync(join(tmpdir(), 'vmhub-plugins-template-'));
  // Built outside node_modules (tsc refuses to emit declarations that point into one), then
  // installed by a symlink, as `npm link` or a workspace would.
  const copy = join(area, 'my-adapter');
  const app = pathToFileURL(join(area, 'node_modules', 'app', 'index.js')).href;
  after(() => rmSync(area, { recursive: true, force: true }));
  before(() => {
    const template = fileURLToPath(new URL('../../../examples/adapter-template/', import.meta.url));
    cpSync(template, copy, { recursive: true, filter: (p) => !/[/\\](node_modules|dist)([/\\]|$)/.test(p.slice(template.length - 1)) });
    const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
    writeFileSync(join(copy, 'package.json'), JSON.stringify({ ...manifest, name: 'my-adapter' }, null, 2));
    const require = createRequire(import.meta.url);
    const link = (name: string, target: string) => { mkdirSync(dirname(join(copy, 'node_modules', name)), { recursive: true }); symlinkSync(target, join(copy, 'node_modules', name), 'dir'); };
    link('@vmhub/core', fileURLToPath(new URL('../', import.meta.url)));
    link('typescript', dirname(require.resolve('typescript/package.json')));
    link('@types/node', dirname(require.resolve('@types/node/package.json')));
    try {
      execFileSync(process.execPath, [join(copy, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: copy, encoding: 'utf8' });
    } catch (err) {
      assert.fail(`the template's tsc failed: ${(err as { stdout?: string }).stdout ?? ''}${(err as Error).message}`);
    }
    mkdirSync(join(area, 'node_modules'));
    symlinkSync(copy, join(area, 'node_modules', 'my-adapter'), 'dir');
    mkdirSync(join(area, 'node_modules', 'app'));
    writeFileSync(join(area, 'node_modules', 'app', 'package.json'), JSON.stringify({ name: 'app' }));
  });
  const loaded = async (names: string[], cwd?: string) => {
    const found = await discoverPlugins({ from: app, names, scan: false, ...(cwd ? { cwd } : {}) });
    assert.equal(found.length, 1, JSON.stringify(found));
    const [pkg] = found;
    assert.equal(pkg!.error, undefined);
    assert.equal(pkg!.package, 'my-adapter');
    assert.equal(pkg!.version, '0.2.0');
    assert.deepEqual(pkg!.plugins.map((p) => [p.kind, p.id, p.contractVersion]), [['adapter', 'example', CONTRACT_VERSION]]);
    assert.equal(pkg!.plugins[0]!.version, '0.2.0', 'the plugin read its version from its own package.json');
    return pkg!;
  };

  it('by package name, installed beside the app', async () => {
    assert.equal((await loaded(['my-adapter'])).entry, join(copy, 'dist', 'index.js'));
  });
  it('by package directory: absolute, or relative to the working directory', async () => {
    assert.equal((await loaded([copy])).entry, join(copy, 'dist', 'index.js'));
    await loaded(['./my-adapter'], area);
    await loaded(['./node_modules/my-adapter'], area);
    await loaded([`${copy}/`]);
    await loaded([pathToFileURL(copy).href]);
  });
  it('by entry file: the package is still named from its package.json', async () => {
    await loaded([join(copy, 'dist', 'index.js')]);
    await loaded(['./my-adapter/dist/index.js'], area);
  });
  it('named twice (by name and by directory) it is loaded once, so it is no duplicate', async () => {
    await loaded(['my-adapter', copy, join(copy, 'dist', 'index.js')]);
  });
});
