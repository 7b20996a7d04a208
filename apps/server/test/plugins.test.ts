// Broken, missing or incompatible plugins are reported in vm_health and template availability;
// the server never crashes because of them.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { connect, errorCode, sandbox, type Sandbox, type Session } from './harness.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
let box: Sandbox;
let s: Session;
before(async () => {
  box = sandbox({ plugins: ['@vmhub/conformance/fake', 'vmhub-adapter-does-not-exist', fixture('old-contract-plugin.mjs'), fixture('throwing-plugin.mjs')] }, [
    { id: 'fake-desktop', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g' },
    { id: 'needs-ancient', provider: 'fake', adapter: 'ancient', os: 'linux', golden: 'g' },
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
