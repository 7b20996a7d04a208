/**
 * A template's `adapter_options` give its leases their own adapter instance: merged over the
 * server's `adapters.<id>`, validated by the adapter's schema (invalid → the template is
 * unavailable with the reason, the rest keep working). The fake adapter's `missing` option makes
 * a declared capability absent on the machine, as a golden without AT-SPI does for x11 inspect.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, errorCode, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';

let box: Sandbox;
let s: Session;
const leases: string[] = [];

before(async () => {
  box = sandbox({ adapters: { fake: { missing: { drag: 'server-wide: no pointer drag here' } } } }, [
    { id: 'fake-plain', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', provider_options: { ready_delay_ms: 50 } },
    { id: 'fake-no-inspect', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', provider_options: { ready_delay_ms: 50 },
      adapter_options: { missing: { inspect: 'this golden has no accessibility stack' } } },
    { id: 'fake-bad-key', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', adapter_options: { missing: { teleport: 'no' } } },
    { id: 'fake-bad-type', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', adapter_options: { missing: 'inspect' } },
  ]);
  s = await connect(box);
});
after(async () => {
  for (const id of leases) await s.call('vm_lease_release', { lease_id: id });
  await s.close();
  box.cleanup();
});

async function lease(template: string): Promise<string> {
  const r = await s.call('vm_lease_create', { template, ttl_seconds: 300 });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  const id = r.structuredContent.lease_id as string;
  leases.push(id);
  assert.equal((await waitReady(s, id)).status, 'ready');
  return id;
}

describe('server: per-template adapter_options', () => {
  it('invalid adapter_options make only that template unavailable, naming the template and the problem', async () => {
    const templates = (await s.call('vm_list_templates')).structuredContent.templates;
    const t = (id: string) => templates.find((x: any) => x.id === id);
    assert.equal(t('fake-plain').availability, 'available');
    assert.equal(t('fake-no-inspect').availability, 'available');
    for (const id of ['fake-bad-key', 'fake-bad-type']) {
      assert.equal(t(id).availability, 'unavailable', id);
      assert.match(t(id).reason, new RegExp(`template "${id}": adapter_options are invalid for adapter "fake": .*options`));
    }
    assert.match(t('fake-bad-key').reason, /teleport/);
    const create = await s.call('vm_lease_create', { template: 'fake-bad-key' });
    assert.equal(errorCode(create), 'CAPABILITY_UNAVAILABLE');
    assert.match(create.structuredContent.message, /adapter_options are invalid/);
  });

  it('the template\'s options reach its leases, key by key over the server\'s adapter options', async () => {
    const id = await lease('fake-no-inspect');
    const inspect = await s.call('vm_inspect', { lease_id: id });
    assert.equal(errorCode(inspect), 'CAPABILITY_UNAVAILABLE');
    assert.match(inspect.structuredContent.message, /inspect is unavailable on this machine: this golden has no accessibility stack/);
    // Shallow merge: the template's `missing` replaces the server's whole `missing` value.
    const drag = await s.call('vm_drag', { lease_id: id, from: { x: 10, y: 10 }, to: { x: 20, y: 20 } });
    assert.equal(drag.isError, undefined, JSON.stringify(drag.structuredContent));
    const caps = (await s.call('vm_capabilities', { lease_id: id })).structuredContent;
    assert.ok(!caps.capabilities.includes('inspect'));
    assert.deepEqual(caps.unavailable.find((u: any) => u.capability === 'inspect'), { capability: 'inspect', reason: 'this golden has no accessibility stack' });
    assert.equal((await s.call('vm_screenshot', { lease_id: id })).isError, undefined, 'other capabilities are served');
  });

  it('a template without adapter_options keeps the shared instance with the server\'s options', async () => {
    const id = await lease('fake-plain');
    const inspect = await s.call('vm_inspect', { lease_id: id });
    assert.equal(inspect.isError, undefined, JSON.stringify(inspect.structuredContent));
    assert.equal(inspect.structuredContent.source, 'fake-desktop');
    const drag = await s.call('vm_drag', { lease_id: id, from: { x: 10, y: 10 }, to: { x: 20, y: 20 } });
    assert.equal(errorCode(drag), 'CAPABILITY_UNAVAILABLE');
    assert.match(drag.structuredContent.message, /server-wide: no pointer drag here/);
  });
});
