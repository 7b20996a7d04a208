// Broken, missing or incompatible plugins are reported in vm_health and template availability;
// the server never crashes because of them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { connect, errorCode, sandbox, until, type Sandbox, type Session } from './harness.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
let box: Sandbox;
let s: Session;
const released = join(mkdtempSync(join(tmpdir(), 'vmhub-contract-one-')), 'released.log');
before(async () => {
  box = sandbox({ adapters: { 'contract-one': { released_log: released } }, plugins: ['@vmhub/conformance/fake', 'vmhub-adapter-does-not-exist', fixture('old-contract-plugin.mjs'), fixture('throwing-plugin.mjs'), fixture('contract-1-adapter.mjs')] }, [
    { id: 'fake-desktop', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g' },
    { id: 'needs-ancient', provider: 'fake', adapter: 'ancient', os: 'linux', golden: 'g' },
    { id: 'contract-one', provider: 'fake', adapter: 'contract-one', os: 'linux', golden: 'g' },
    { id: 'needs-missing-provider', provider: 'nowhere', adapter: 'fake', os: 'linux', golden: 'g' },
    { id: 'needs-broken-package', provider: 'fake', adapter: 'does-not-exist', os: 'linux', golden: 'g' },
  ]);
  s = await connect(box);
});
after(async () => { await s.close(); box.cleanup(); });

it('server: broken plugins are reported, never fatal', async () => {
  const health = (await s.call('vm_health')).structuredContent;
  assert.equal(health.status, 'degraded');
  const byId = (id: string) => health.plugins.find((p: any) => p.id.includes(id));
  assert.match(byId('vmhub-adapter-does-not-exist').reason, /not installed/);
  assert.match(byId('old-contract-plugin').reason, /contract version 0/);
  assert.match(byId('throwing-plugin').reason, /fails at import time/);
  assert.equal(health.plugins.find((p: any) => p.id === 'fake').ok, true);

  const templates = (await s.call('vm_list_templates')).structuredContent.templates;
  const t = (id: string) => templates.find((x: any) => x.id === id);
  assert.equal(t('fake-desktop').availability, 'available');
  assert.equal(t('needs-ancient').availability, 'unavailable');
  assert.match(t('needs-ancient').reason, /adapter "ancient" is not installed/);
  assert.match(t('needs-missing-provider').reason, /provider "nowhere" is not installed/);
  // the package named for the adapter failed to load: its own reason is given, not a generic one
  assert.match(t('needs-broken-package').reason, /adapter "does-not-exist" is unusable: package "vmhub-adapter-does-not-exist" is not installed/);
  const create = await s.call('vm_lease_create', { template: 'needs-missing-provider' });
  assert.equal(errorCode(create), 'CAPABILITY_UNAVAILABLE');
  assert.match(create.structuredContent.message, /provider "nowhere"/);
});

it('server: a plugin built for the previous contract is served through the shim and named in vm_health', async () => {
  const health = (await s.call('vm_health')).structuredContent;
  const one = health.plugins.find((p: any) => p.id === 'contract-one');
  assert.equal(one.ok, true, JSON.stringify(one));
  assert.equal(one.old_contract, 1);
  assert.match(one.note, /built for contract 1; served through core's shim/);
  assert.equal(health.plugins.find((p: any) => p.id === 'fake').old_contract, undefined, 'a current plugin is not flagged');
  const created = await s.call('vm_lease_create', { template: 'contract-one' });
  const lease = created.structuredContent.lease_id as string;
  await until(async () => (await s.call('vm_lease_status', { lease_id: lease })).structuredContent.status === 'ready', 'the contract-one lease is ready', 10_000);
  const exec = await s.call('vm_exec', { lease_id: lease, command: ['echo', 'through', 'the', 'shim'] });
  assert.equal(exec.structuredContent?.stdout, `${lease} echo through the shim\n`, JSON.stringify(exec.structuredContent));
  await s.call('vm_lease_release', { lease_id: lease });
  await until(() => existsSync(released) && readFileSync(released, 'utf8').includes(lease), 'releasing the lease calls the contract-1 release(lease_id)', 10_000);
});

it('server: policy denies configured tools with POLICY_DENIED', async () => {
  const denied = sandbox({ policy: { deny_tools: ['vm_exec'] } });
  const d = await connect(denied);
  try {
    const r = await d.call('vm_exec', { lease_id: 'x', command: ['true'] });
    assert.equal(errorCode(r), 'POLICY_DENIED');
  } finally {
    await d.close();
    denied.cleanup();
  }
});

it('server: a provider whose options are invalid still lists its own templates, unavailable with the reason', async () => {
  const bad = sandbox({ providers: { fake: { dir: '/tmp/unused', bogus_key: 1 } } }, []);
  const d = await connect(bad);
  try {
    const health = (await d.call('vm_health')).structuredContent;
    const fake = health.plugins.find((p: any) => p.id === 'fake' && p.kind === 'provider');
    assert.equal(fake.ok, false);
    assert.match(fake.reason, /unknown field "bogus_key"/);
    const templates = (await d.call('vm_list_templates')).structuredContent.templates;
    const t = templates.find((x: any) => x.id === 'fake-desktop');
    assert.ok(t, 'the provider\'s built-in template is still listed');
    assert.equal(t.availability, 'unavailable');
    assert.match(t.reason, /provider "fake" is unusable: .*unknown field "bogus_key"/);
    const create = await d.call('vm_lease_create', { template: 'fake-desktop' });
    assert.equal(errorCode(create), 'CAPABILITY_UNAVAILABLE');
  } finally {
    await d.close();
    bad.cleanup();
  }
});

// A third-party adapter that is not installed anywhere: examples/adapter-template copied and
// built with its own tsc, then named in the config by its directory or by its entry file.
describe('server: a plugin named by directory or entry file', () => {
  const area = mkdtempSync(join(tmpdir(), 'vmhub-itest-plugin-path-'));
  const built = join(area, 'vmhub-adapter-example');
  const unbuilt = join(area, 'unbuilt', 'vmhub-adapter-example');
  const template = { id: 'example-desktop', provider: 'fake', adapter: 'example', os: 'linux', golden: 'g' };
  after(() => rmSync(area, { recursive: true, force: true }));
  before(() => {
    const src = fileURLToPath(new URL('../../../examples/adapter-template/', import.meta.url));
    const copy = (to: string) => cpSync(src, to, { recursive: true, filter: (p) => !/[/\\](node_modules|dist)([/\\]|$)/.test(p.slice(src.length - 1)) });
    copy(built);
    copy(unbuilt);
    // What `npm install` gives the copied template: @vmhub/core as this server has it, its tsc and node types.
    const server = fileURLToPath(new URL('../node_modules/', import.meta.url));
    const root = createRequire(join(fileURLToPath(new URL('../../../', import.meta.url)), 'package.json'));
    for (const [name, target] of [['@vmhub/core', realpathSync(join(server, '@vmhub/core'))], ['typescript', dirname(root.resolve('typescript/package.json'))], ['@types/node', dirname(root.resolve('@types/node/package.json'))]] as const) {
      mkdirSync(dirname(join(built, 'node_modules', name)), { recursive: true });
      symlinkSync(target, join(built, 'node_modules', name), 'dir');
    }
    try {
      execFileSync(process.execPath, [join(built, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: built, encoding: 'utf8' });
    } catch (err) {
      assert.fail(`the template's tsc failed: ${(err as { stdout?: string }).stdout ?? ''}${(err as Error).message}`);
    }
  });

  /** vm_health's record of the example adapter and the availability of a template using it. */
  async function served(plugins: string[], env: Record<string, string> = {}) {
    const box = sandbox({ plugins: ['@vmhub/conformance/fake', ...plugins] }, [template]);
    const s = await connect(box, env);
    try {
      const health = (await s.call('vm_health')).structuredContent;
      const templates = (await s.call('vm_list_templates')).structuredContent.templates;
      return { health, adapter: health.plugins.find((p: any) => p.kind === 'adapter' && p.id === 'example'), template: templates.find((t: any) => t.id === template.id) };
    } finally {
      await s.close();
      box.cleanup();
    }
  }
  const isServed = (r: Awaited<ReturnType<typeof served>>) => {
    assert.deepEqual(r.adapter, { id: 'example', kind: 'adapter', package: 'vmhub-adapter-example', version: '0.2.0', ok: true });
    assert.equal(r.template.availability, 'available', JSON.stringify(r.template));
    assert.deepEqual([...r.template.capabilities].sort(), ['click', 'exec', 'get_file', 'key', 'put_file', 'screenshot', 'type']);
    assert.deepEqual(r.health.plugins.filter((p: any) => !p.ok), []);
  };

  it('by its directory (config plugins)', async () => {
    isServed(await served([built]));
  });
  it('by its entry file (config plugins)', async () => {
    isServed(await served([join(built, 'dist', 'index.js')]));
  });
  it('by a directory relative to the working directory (VMHUB_PLUGINS)', async () => {
    const rel = relative(process.cwd(), built);
    isServed(await served([], { VMHUB_PLUGINS: rel.startsWith('.') ? rel : `./${rel}` }));
  });

  it('an unbuilt copy: the template says to build it, not to install a package', async () => {
    const r = await served([unbuilt]);
    assert.equal(r.template.availability, 'unavailable');
    assert.match(r.template.reason, new RegExp(`^adapter "example" is unusable: plugin vmhub-adapter-example \\(${unbuilt}\\): its entry \\./dist/index\\.js \\(package\\.json "exports"\\) does not exist: build the package first \\(e\\.g\\. npm run build in ${unbuilt}\\)$`));
  });

  it('a directory without package.json and an entry without a plugin are reported with their paths', async () => {
    const notPlugin = join(area, 'not-a-plugin.mjs');
    writeFileSync(notPlugin, 'export const exampleAdapter = {};\n');
    const r = await served([join(area, 'unbuilt'), notPlugin]);
    const reason = (id: string) => r.health.plugins.find((p: any) => p.kind === 'package' && p.id === id)?.reason;
    assert.match(reason(join(area, 'unbuilt')), new RegExp(`^plugin directory ${join(area, 'unbuilt')} has no package\\.json \\(it holds vmhub-adapter-example; did you mean ${unbuilt}\\?\\)`));
    assert.match(reason(notPlugin), new RegExp(`^${notPlugin} exports no plugin \\(found no default export and named exports exampleAdapter\\)`));
  });
});
