import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { CONTRACT_VERSION } from './define.ts';
import { discoverPlugins, isPluginPath, resolvePluginPaths } from './plugins.ts';

const root = mkdtempSync(join(tmpdir(), 'vmhub-plugin-path-'));
after(() => rmSync(root, { recursive: true, force: true }));
const from = pathToFileURL(join(root, 'app.js')).href;
// Loose .js files here are ES modules; a package.json without a name is no package of theirs.
writeFileSync(join(root, 'package.json'), '{"type":"module"}');
function file(rel: string, body: string): string {
  const path = join(root, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, body);
  return path;
}
const plugin = `{ kind: 'adapter', id: 'ok', version: '1', contractVersion: ${CONTRACT_VERSION}, capabilities: [], verbs: [], create() { return {}; } }`;

/** The one package discovered for this spec, which must have failed. */
async function failure(spec: string, cwd = root) {
  const found = await discoverPlugins({ from, names: [spec], scan: false, cwd });
  assert.equal(found.length, 1);
  const [pkg] = found;
  assert.ok(pkg!.error, `expected a failure, got ${JSON.stringify(pkg)}`);
  assert.deepEqual(pkg!.plugins, []);
  return pkg!;
}

describe('core: plugins named by path, each failure typed and naming the fix', () => {
  it('a path that does not exist', async () => {
    const r = await failure('./nowhere');
    assert.equal(r.problem, 'PATH_NOT_FOUND');
    assert.match(r.error!, new RegExp(`plugin path ${join(root, 'nowhere')} \\("./nowhere" resolved to it\\) does not exist`));
  });

  it('a directory without package.json names what it holds and the package folder inside it', async () => {
    file('checkout/README.md', '# hi\n');
    file('checkout/my-adapter/package.json', '{"name":"my-adapter"}');
    const r = await failure(join(root, 'checkout'));
    assert.equal(r.problem, 'NO_PACKAGE_JSON');
    assert.equal(r.package, join(root, 'checkout'));
    assert.match(r.error!, /checkout has no package\.json \(it holds README\.md, my-adapter; did you mean .*checkout\/my-adapter\?\)/);
    mkdirSync(join(root, 'empty'));
    assert.match((await failure('./empty')).error!, /empty has no package\.json \(it is empty\)/);
  });

  it('a package.json that is not JSON, or not an object', async () => {
    file('bad-json/package.json', '{ name: ');
    const r = await failure('./bad-json');
    assert.equal(r.problem, 'BAD_PACKAGE_JSON');
    assert.match(r.error!, /bad-json\/package\.json is not valid JSON/);
    file('array-json/package.json', '[]');
    assert.equal((await failure('./array-json')).problem, 'BAD_PACKAGE_JSON');
  });

  it('a package.json without an entry lists the fields it has', async () => {
    file('no-entry/package.json', JSON.stringify({ name: 'vmhub-adapter-no-entry', version: '0.3.0', scripts: {} }));
    const r = await failure('./no-entry');
    assert.equal(r.problem, 'NO_ENTRY');
    assert.equal(r.package, 'vmhub-adapter-no-entry', 'named from package.json, so a template using its adapter gets this reason');
    assert.equal(r.version, '0.3.0');
    assert.match(r.error!, /no-entry\/package\.json names no entry \(no "exports", no "main", and no index\.js; fields: name, version, scripts\): add "exports"/);
    file('subpaths-only/package.json', JSON.stringify({ name: 'subpaths-only', exports: { './extra': './extra.js' } }));
    const s = await failure('./subpaths-only');
    assert.equal(s.problem, 'NO_ENTRY');
    assert.match(s.error!, /has "exports" \(\.\/extra\) but no "\." entry/);
  });

  it('an entry that is not built yet says to build it', async () => {
    file('unbuilt/package.json', JSON.stringify({ name: 'vmhub-adapter-unbuilt', version: '0.1.0', exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } } }));
    const r = await failure('./unbuilt');
    assert.equal(r.problem, 'ENTRY_NOT_FOUND');
    assert.match(r.error!, /plugin vmhub-adapter-unbuilt \(.*unbuilt\): its entry \.\/dist\/index\.js \(package\.json "exports"\) does not exist: build the package first \(e\.g\. npm run build in .*unbuilt\)/);
  });

  it('an entry that exports no plugin names the file and what it found', async () => {
    const named = file('named-only/index.js', `export const exampleAdapter = ${plugin}; export function helper() {}`);
    const r = await failure(named);
    assert.equal(r.problem, 'NOT_A_PLUGIN');
    assert.equal(r.entry, named);
    assert.match(r.error!, new RegExp(`^${named} exports no plugin \\(found no default export and named exports exampleAdapter, helper\\)`));
    file('number/package.json', JSON.stringify({ name: 'number-plugin', type: 'module', main: 'lib' }));
    const entry = file('number/lib/index.js', 'export default 42;');
    const n = await failure('./number');
    assert.equal(n.problem, 'NOT_A_PLUGIN');
    assert.equal(n.entry, entry, 'main resolves as Node does (a folder → its index.js)');
    assert.match(n.error!, /number\/lib\/index\.js: default export is 42 \(a number\), not a plugin: it must be made by defineAdapter\/defineProvider/);
    const obj = await failure(file('object.mjs', 'export default { id: "x", create() {} };'));
    assert.match(obj.error!, /object\.mjs: default export is not made by defineAdapter\/defineProvider \(no kind; found an object with keys id, create\)/);
  });

  it('a source file instead of the built one, and an import that fails', async () => {
    const ts = await failure(file('src/index.ts', 'export default {};'));
    assert.equal(ts.problem, 'NOT_JAVASCRIPT');
    assert.match(ts.error!, /src\/index\.ts is not a JavaScript file \(\.js, \.mjs, \.cjs\): name the built file/);
    file('missing-dep/package.json', JSON.stringify({ name: 'missing-dep', type: 'module', exports: './index.js' }));
    file('missing-dep/index.js', `import '@vmhub/not-installed-anywhere'; export default ${plugin};`);
    const dep = await failure('./missing-dep');
    assert.equal(dep.problem, 'LOAD_FAILED');
    assert.match(dep.error!, /Cannot find package '@vmhub\/not-installed-anywhere'.*: install its dependencies \(npm install in .*missing-dep\)/);
  });

  it('a package name that is not installed says how to install it, and spots the folder it may have meant', async () => {
    mkdirSync(join(root, 'vmhub-adapter-here'));
    const r = await failure('vmhub-adapter-here');
    assert.equal(r.problem, 'NOT_INSTALLED');
    assert.match(r.error!, /package "vmhub-adapter-here" is not installed where @vmhub\/server can import it: install it beside the server \(npx -y -p @vmhub\/server -p vmhub-adapter-here vmhub-server; npm i -g @vmhub\/server vmhub-adapter-here\)/);
    assert.match(r.error!, /there is \.\/vmhub-adapter-here in .*: to load it by path, write \.\/vmhub-adapter-here/);
    const sub = await failure('@scope/some-plugin/fake');
    assert.match(sub.error!, /-p @scope\/some-plugin vmhub-server/);
  });

  it('a CommonJS build whose exports.default is the plugin loads', async () => {
    const found = await discoverPlugins({ from, names: [file('cjs/plugin.cjs', `exports.default = ${plugin};`)], scan: false });
    assert.equal(found[0]!.error, undefined);
    assert.deepEqual(found[0]!.plugins.map((p) => p.id), ['ok']);
  });
});

describe('core: which plugin specs are paths', () => {
  it('absolute, ./, ../, ~/ and file: URLs are paths; package names and subpaths are not', () => {
    for (const spec of ['/opt/a', './a', '../a', '.', '..', '~/a', 'file:///opt/a']) assert.equal(isPluginPath(spec), true, spec);
    for (const spec of ['my-adapter', '@vmhub/adapter-x11', '@vmhub/conformance/fake', 'chart.js', 'dist/index.js']) assert.equal(isPluginPath(spec), false, spec);
  });
  it('resolvePluginPaths makes paths absolute against a base and leaves names alone', () => {
    assert.deepEqual(resolvePluginPaths(['./a', '../b/c.js', '/abs', '~/x', 'my-adapter'], '/etc/vmhub'), ['/etc/vmhub/a', '/etc/b/c.js', '/abs', join(homedir(), 'x'), 'my-adapter']);
  });
});
