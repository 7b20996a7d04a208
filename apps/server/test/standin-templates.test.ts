// Stand-in templates (real protocol peers for OSes that cannot run here) are offered only when
// asked for: without VMHUB_STANDIN_TEMPLATES the server lists none of them and a lease on one is
// NOT_FOUND saying how to turn them on; with it (env or config) they are listed, each saying it is
// a stand-in. Uses the fake provider, so nothing has to be built.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { loadConfig } from '@vmhub/core/config';
import { standinCheck } from '../src/doctor/checks.ts';
import { LeaseManager } from '../src/leases/manager.ts';
import { Registry } from '../src/registry.ts';
import { connect, defaultTemplates, errorCode, sandbox, waitReady } from './harness.ts';

const standin = { id: 'fakeos-standin', provider: 'fake', adapter: 'fake', os: 'fakeos', golden: 'fake:golden', standin: true, description: 'Stand-in for FakeOS: the fake desktop', provider_options: { ready_delay_ms: 50 } };
const ids = async (s: Awaited<ReturnType<typeof connect>>): Promise<string[]> =>
  (await s.call('vm_list_templates')).structuredContent.templates.map((t: { id: string }) => t.id);

describe('server: stand-in templates', () => {
  const boxes: ReturnType<typeof sandbox>[] = [];
  after(() => { for (const b of boxes) b.cleanup(); });

  it('are hidden by default, and a lease on one is NOT_FOUND naming VMHUB_STANDIN_TEMPLATES', async () => {
    const box = sandbox({}, [...defaultTemplates(), standin]);
    boxes.push(box);
    const s = await connect(box);
    try {
      const listed = await ids(s);
      assert.ok(listed.includes('fake-desktop'));
      assert.ok(!listed.some((id) => id.endsWith('-standin')), `no stand-in listed: ${listed.join(', ')}`);
      const r = await s.call('vm_lease_create', { template: 'fakeos-standin' });
      assert.equal(errorCode(r), 'NOT_FOUND');
      assert.match(r.structuredContent.message, /stand-in/);
      assert.match(r.structuredContent.message, /VMHUB_STANDIN_TEMPLATES=1/);
    } finally {
      await s.close();
    }
  });

  it('VMHUB_STANDIN_TEMPLATES=1 lists them (the built-in ones too) and leases work', async () => {
    const box = sandbox({}, [...defaultTemplates(), standin]);
    boxes.push(box);
    const s = await connect(box, { VMHUB_STANDIN_TEMPLATES: '1' });
    try {
      const templates = (await s.call('vm_list_templates')).structuredContent.templates as { id: string; description?: string }[];
      const listed = templates.map((t) => t.id);
      assert.ok(listed.includes('fakeos-standin'));
      for (const id of ['android-standin', 'windows-standin', 'macos-standin', 'hyprland-standin']) {
        const t = templates.find((x) => x.id === id);
        assert.ok(t, `${id} is offered (${listed.join(', ')})`);
        assert.match(t.description ?? '', /stand-in/i, `${id} says it is a stand-in`);
      }
      const created = await s.call('vm_lease_create', { template: 'fakeos-standin' });
      const lease = await waitReady(s, created.structuredContent.lease_id);
      assert.equal(lease.status, 'ready');
      await s.call('vm_lease_release', { lease_id: lease.lease_id });
    } finally {
      await s.close();
    }
  });

  it('config standin_templates: true does the same', async () => {
    const box = sandbox({ standin_templates: true }, [...defaultTemplates(), standin]);
    boxes.push(box);
    const s = await connect(box);
    try {
      assert.ok((await ids(s)).includes('fakeos-standin'));
    } finally {
      await s.close();
    }
  });
});

describe('server: stand-in templates asked for where none is installed (an npm install)', () => {
  // Installed from the registry there is no @vmhub/standin-goldens (a private workspace package),
  // so no provider offers a stand-in. Here: a server whose only plugin is the fake one, loaded
  // from a folder outside the checkout, with VMHUB_STANDIN_TEMPLATES=1.
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-no-standins-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const fake = createRequire(import.meta.url).resolve('@vmhub/conformance/fake');
  const config = () => loadConfig({ env: { XDG_CONFIG_HOME: dir, VMHUB_STANDIN_TEMPLATES: '1', VMHUB_PLUGINS: fake, VMHUB_DB: join(dir, 'vmhub.db') } });

  it('the registry says why (the stand-ins live in a checkout only), doctor fails them with the fix, a lease on one is NOT_FOUND saying so', async () => {
    const registry = await Registry.load(config(), join(dir, 'server.mjs'));
    try {
      assert.ok(registry.providers.has('fake'), 'the fake provider loaded');
      assert.ok(![...registry.templates.values()].some((t) => t.standin), 'no stand-in template is offered');
      assert.match(registry.standinsAbsent ?? '', /@vmhub\/standin-goldens, a private workspace package that only a checkout of the vmhub repository has/);
      const [check] = standinCheck(registry);
      assert.equal(check?.status, 'fail');
      assert.equal(check?.counts, true);
      assert.match(check?.fix ?? '', /run vmhub-server from a checkout/);
      const leases = new LeaseManager(undefined as never, registry, config(), async () => undefined);
      assert.throws(() => leases.template('windows-standin'), (err: unknown) =>
        VmhubError.is(err) && err.code === 'NOT_FOUND' && /template "windows-standin" is not installed: .*@vmhub\/standin-goldens/.test(err.message));
    } finally {
      await registry.close();
    }
  });

  it('in this checkout the built-in stand-ins are there: nothing to say', async () => {
    const registry = await Registry.load(config(), createRequire(import.meta.url).resolve('../src/registry.ts'));
    try {
      assert.equal(registry.standinsAbsent, undefined);
      assert.deepEqual(standinCheck(registry), []);
      for (const id of ['android-standin', 'hyprland-standin', 'macos-standin', 'windows-standin']) assert.equal(registry.templates.get(id)?.standin, true, id);
    } finally {
      await registry.close();
    }
  });
});
