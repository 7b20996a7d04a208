// Stand-in templates (real protocol peers for OSes that cannot run here) are offered only when
// asked for: without VMHUB_STANDIN_TEMPLATES the server lists none of them and a lease on one is
// NOT_FOUND saying how to turn them on; with it (env or config) they are listed, each saying it is
// a stand-in. Uses the fake provider, so nothing has to be built.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
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
