// The package-shape check on small fixture trees: a good adapter and a good provider pass; each
// rule fails on a tree made bad in one way, with a problem naming the file and the fix. The
// plugins are given to the check (the trees live in a temp dir, where @vmhub/core does not
// resolve), except for the entry and CLI tests, whose entry is plain JS.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { defineProvider, type VmhubPlugin } from '@vmhub/core';
import { defineAdapter } from '@vmhub/core/adapter-kit';
import { checkPackageShape, type ShapeProblem, type ShapeRule } from '../src/package-shape/index.ts';
import { importsOf } from '../src/package-shape/imports.ts';

const scratch = mkdtempSync(join(tmpdir(), 'vmhub-shape-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

type Tree = Record<string, string | null>;
const PEER = { '@vmhub/core': '>=0.2.0 <1.0.0' };
const manifest = (name: string, extra: object = {}) => JSON.stringify({ name, version: '1.0.0', type: 'module', exports: { '.': './dist/index.js' }, peerDependencies: PEER, ...extra });
const HEADER = "import { readPackageVersion } from '@vmhub/core';\nexport const version = readPackageVersion(import.meta.url);\nexport const contractVersion = { contractVersion: 2 };\n";

const ADAPTER_TREE: Tree = {
  'package.json': manifest('vmhub-adapter-demo'),
  'src/index.ts': "export { demoAdapter as default } from './adapter.ts';\n",
  'src/options.ts': "import { Type } from '@vmhub/core';\nexport const DemoOptions = Type.Object({});\n",
  'src/adapter.ts': `${HEADER}import { defineAdapter } from '@vmhub/core/adapter-kit';\nimport { click } from './demo-click.ts';\n`,
  'src/runtime.ts': "export const createRuntime = () => ({});\n",
  'src/demo-click.ts': "import { keysFor } from './keys.ts';\nexport const click = async () => keysFor('a');\n",
  'src/demo-put-file.ts': "export const putFile = async () => undefined; // import('x') in a comment is no import\n",
  'src/demo-screen-size.ts': "let size: import('@vmhub/core').Capability | undefined;\nexport const screenSize = async () => ({ width: 1, height: 1 });\n",
  'src/probe.ts': "export const probe = async () => ({});\n",
  'src/keys.ts': "export const keysFor = (k: string) => [k, 'import(\"not-code\")', /import\\(/.test(k)];\n",
  'src/keys.test.ts': "await import('./keys.ts'); import '@vmhub/conformance';\n",
};

const PROVIDER_ROLES = ['provider', 'create', 'destroy', 'list', 'ready', 'status', 'state', 'connect'];
const PROVIDER_TREE: Tree = {
  'package.json': manifest('@example/vmhub-provider-demo'),
  'src/index.ts': "export { demoProvider as default } from './demo-provider.ts';\n",
  'src/options.ts': 'export const DemoOptions = {};\n',
  ...Object.fromEntries(PROVIDER_ROLES.map((r) => [`src/demo-${r}.ts`, `export const ${r} = async () => undefined;\n`])),
  'src/client.ts': "import { Socket } from 'node:net';\nexport const client = () => new Socket();\n",
};

const adapter = (version = '1.0.0') => defineAdapter({
  id: 'demo', version, contractVersion: 2, runtime: () => ({}),
  methods: { click: async () => undefined, putFile: async () => undefined, screenSize: async () => ({ width: 1, height: 1 }), probe: async () => ({}) },
});
const provider = defineProvider({
  id: 'demo', version: '1.0.0', contractVersion: 2,
  create: () => ({
    status: async () => ({ ok: true }), availability: async () => ({ availability: 'available' as const }),
    create: async () => ({ identity: 'x', external_id: 'x' }), ready: async () => undefined, destroy: async () => 'destroyed' as const, list: async () => [],
    state: async () => 'running' as const, connect: async () => { throw new Error('no'); },
  }),
});

let trees = 0;
/** Writes `base` changed by `change` (null deletes a file) into a fresh folder. */
function tree(base: Tree, change: Tree = {}): string {
  const dir = join(scratch, `t${trees++}`);
  for (const [file, text] of Object.entries({ ...base, ...change })) {
    if (text === null) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const check = (base: Tree, change: Tree, plugin: VmhubPlugin, options = {}) => checkPackageShape(tree(base, change), { plugin, ...options });
const rules = (problems: readonly ShapeProblem[]) => problems.map((p) => `${p.rule} ${p.file}`).sort();
function expectOne(problems: readonly ShapeProblem[], rule: ShapeRule, file: string, fix: RegExp): void {
  assert.deepEqual(rules(problems), [`${rule} ${file}`], JSON.stringify(problems, null, 2));
  assert.match(problems[0]!.fix, fix);
}

describe('checkPackageShape: a good package passes', () => {
  it('an adapter on the kit: roles, capability files, probe.ts, <id>-screen-size.ts, helpers unprefixed; tests not read', async () => {
    assert.deepEqual(await check(ADAPTER_TREE, {}, adapter()), []);
  });
  it('a provider with state() and connect(), a scoped vmhub-provider-* name', async () => {
    assert.deepEqual(await check(PROVIDER_TREE, {}, provider), []);
  });
});

describe('checkPackageShape: each rule names the file and the fix', () => {
  it('role-file: an adapter without runtime.ts', async () => {
    expectOne(await check(ADAPTER_TREE, { 'src/runtime.ts': null }, adapter()), 'role-file', 'src/runtime.ts', /src\/runtime\.ts: one file name per role/);
  });
  it('capability-file: a declared capability without <id>-<capability>.ts', async () => {
    expectOne(await check(ADAPTER_TREE, { 'src/demo-put-file.ts': null, 'src/files.ts': '' }, adapter()), 'capability-file', 'src/demo-put-file.ts', /putFile\(\) capability function in src\/demo-put-file\.ts/);
  });
  it('role-file: screenSize() outside <id>-screen-size.ts, probe() in <id>-probe.ts (also a prefixed helper)', async () => {
    const problems = await check(ADAPTER_TREE, { 'src/demo-screen-size.ts': null, 'src/probe.ts': null, 'src/demo-probe.ts': '' }, adapter());
    assert.deepEqual(rules(problems), ['prefix src/demo-probe.ts', 'role-file src/demo-screen-size.ts', 'role-file src/probe.ts']);
    assert.match(problems.find((p) => p.file === 'src/probe.ts')!.fix, /probe\(\).*in src\/probe\.ts/);
  });
  it('prefix: an adapter helper carrying the <id>- prefix', async () => {
    expectOne(await check(ADAPTER_TREE, { 'src/demo-session-facts.ts': '' }, adapter()), 'prefix', 'src/demo-session-facts.ts', /rename it by its role .*without the demo- prefix/);
  });
  it('role-file: a provider whose state() and connect() have no file of their own', async () => {
    const problems = await check(PROVIDER_TREE, { 'src/demo-state.ts': null, 'src/demo-connect.ts': null }, provider);
    assert.deepEqual(rules(problems), ['role-file src/demo-connect.ts', 'role-file src/demo-state.ts']);
    assert.match(problems[0]!.fix, /connect\(\) in src\/demo-connect\.ts/);
  });
  it('plugin-import: an adapter importing a provider, a provider importing an adapter, a dependency on a plugin', async () => {
    const a = await check(ADAPTER_TREE, { 'src/keys.ts': "import docker from '@vmhub/provider-docker';\nexport const keysFor = () => docker;\n" }, adapter());
    expectOne(a, 'plugin-import', 'src/keys.ts:1', /plugins meet only through core/);
    const p = await check(PROVIDER_TREE, { 'src/client.ts': "export { x11Adapter } from '@vmhub/adapter-x11';\nexport type { T } from 'vmhub-adapter-other/types';\n" }, provider);
    assert.deepEqual(rules(p), ['plugin-import src/client.ts:1', 'plugin-import src/client.ts:2']);
    expectOne(await check(PROVIDER_TREE, { 'package.json': manifest('@example/vmhub-provider-demo', { dependencies: { '@vmhub/adapter-x11': '^0.2.0' } }) }, provider), 'plugin-import', 'package.json', /remove @vmhub\/adapter-x11 from dependencies/);
  });
  it('dynamic-import: an import() expression, not a type import(), a comment or a string', async () => {
    const problems = await check(ADAPTER_TREE, { 'src/runtime.ts': "export const createRuntime = async () => ({ keys: (await import('./keys.ts')).keysFor });\n" }, adapter());
    expectOne(problems, 'dynamic-import', 'src/runtime.ts:1', /import it statically/);
  });
  it('server-import, platform-import: router, screenshot shaping or config of core; store, server, reaper, conformance', async () => {
    const problems = await check(ADAPTER_TREE, { 'src/keys.ts': "import { createRouter } from '@vmhub/core/router';\nimport { fakeTarget } from '@vmhub/conformance/fake';\nexport const keysFor = () => [createRouter, fakeTarget];\n" }, adapter());
    assert.deepEqual(rules(problems), ['platform-import src/keys.ts:2', 'server-import src/keys.ts:1']);
    assert.match(problems.find((p) => p.rule === 'server-import')!.fix, /import only @vmhub\/core/);
  });
  it('contract-literal and version: CONTRACT_VERSION imported, a version typed by hand, plugin.version not package.json\'s', async () => {
    const problems = await check(ADAPTER_TREE, { 'src/adapter.ts': "import { CONTRACT_VERSION } from '@vmhub/core';\nexport const spec = { contractVersion: CONTRACT_VERSION, version: '1.0.0' };\n" }, adapter('1.0.1'));
    assert.deepEqual(rules(problems), ['contract-literal src/adapter.ts:2', 'version package.json', 'version src/adapter.ts:2']);
    assert.match(problems.find((p) => p.rule === 'contract-literal')!.fix, /as a literal \(contractVersion: 2\)/);
    assert.match(problems.find((p) => p.file === 'package.json')!.fix, /readPackageVersion\(import\.meta\.url\)/);
  });
  it('peer-core and heavy-dependency (allowDependencies lets one through)', async () => {
    const bad = { 'package.json': manifest('vmhub-adapter-demo', { peerDependencies: {}, dependencies: { '@vmhub/core': '^0.2.0', sharp: '^0.34.0', '@modelcontextprotocol/client': '^2.4.0' } }) };
    const problems = await check(ADAPTER_TREE, bad, adapter());
    assert.deepEqual(rules(problems), ['heavy-dependency package.json', 'heavy-dependency package.json', 'peer-core package.json']);
    assert.match(problems.find((p) => p.rule === 'peer-core')!.fix, /peerDependencies/);
    const allowed = await check(ADAPTER_TREE, bad, adapter(), { allowDependencies: ['@modelcontextprotocol/client'] });
    assert.deepEqual(rules(allowed), ['heavy-dependency package.json', 'peer-core package.json']);
  });
  it('load: an entry that was not built', async () => {
    expectOne(await checkPackageShape(tree(ADAPTER_TREE)), 'load', './dist/index.js', /build it/);
  });
});

// A plugin written by hand in plain JS, so the entry imports without @vmhub/core.
const JS_ADAPTER = `export default {
  kind: 'adapter', id: 'demo', version: '1.0.0', contractVersion: 2, capabilities: ['click', 'put_file'], verbs: [],
  create: () => ({ open: () => ({ click: async () => {}, putFile: async () => {}, screenSize: async () => ({ width: 1, height: 1 }), probe: async () => ({}), dispose: async () => {} }) }),
};\n`;

describe('the package entry and vmhub-conformance shape', () => {
  it('imports the entry package.json names and finds what the plugin has', async () => {
    assert.deepEqual(await checkPackageShape(tree(ADAPTER_TREE, { 'dist/index.js': JS_ADAPTER })), []);
    const problems = await checkPackageShape(tree(ADAPTER_TREE, { 'dist/index.js': JS_ADAPTER, 'src/probe.ts': null }));
    assert.deepEqual(rules(problems), ['role-file src/probe.ts']);
  });
  const cli = (...args: string[]) => new Promise<{ code: number; out: string }>((resolve) => {
    execFile(process.execPath, [fileURLToPath(new URL('../src/bin/vmhub-conformance.ts', import.meta.url)), ...args], (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, out: stdout + stderr }));
  });
  it('exits 0 on a good package, 1 with each problem and its fix, 2 on a usage error', async () => {
    const good = await cli('shape', tree(ADAPTER_TREE, { 'dist/index.js': JS_ADAPTER }));
    assert.deepEqual([good.code, /✔ .*the vmhub plugin shape/.test(good.out)], [0, true], good.out);
    const bad = await cli('shape', tree(ADAPTER_TREE, { 'dist/index.js': JS_ADAPTER, 'src/demo-helpers.ts': '' }));
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, /src\/demo-helpers\.ts: carries the demo- prefix .*\[prefix\]\n {2}fix: rename it by its role/);
    assert.equal((await cli('shapes')).code, 2);
  });
});

describe('the import reader', () => {
  it('reads static, re-export and side-effect imports; import() expressions but not type positions, comments, strings or regexes', () => {
    const text = [
      "import a, { b as c } from 'one';",
      "import type { T } from \"two\"; export * from './three.ts';",
      "import 'four'; // import('five')",
      "const s = `import(${await import('six')})` + 'import(\"seven\")' + /import\\(/.source;",
      "let t: import('eight').T; type U = typeof import('nine');",
      "import('ten').then(() => undefined); obj.import('eleven');",
    ].join('\n');
    assert.deepEqual(importsOf(text).map((i) => `${i.line} ${i.dynamic ? 'import()' : 'from'} ${i.specifier}`), [
      '1 from one', '2 from two', '2 from ./three.ts', '3 from four', "4 import() 'six'", "6 import() 'ten'",
    ]);
  });
});
