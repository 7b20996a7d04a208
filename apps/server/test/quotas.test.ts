// Lease limits: per principal (QUOTA_EXCEEDED) and per instance (HOST_CAPACITY); both retryable,
// and an idempotent retry of an existing request is never refused by them. On stdio the
// principal is the local user: every owner label a call gives counts against the same quota.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { connect, errorCode, sandbox, stdioSuite } from './harness.ts';

const suite = stdioSuite({ config: { leases: { max_per_owner: 3, max_total: 50 } } });

it('server: 12 creates with 12 owner labels get 3 leases under a limit of 3 (the principal is counted, not the label)', async () => {
  const results = [];
  for (let i = 0; i < 12; i++) results.push(await suite.s.call('vm_lease_create', { template: 'fake-desktop', owner: `agent-${i}`, request_id: `q${i}` }));
  const made = results.filter((r) => !r.isError);
  assert.equal(made.length, 3, JSON.stringify(results.map((r) => r.structuredContent?.code ?? 'ok')));
  for (const r of results.filter((x) => x.isError)) {
    assert.equal(errorCode(r), 'QUOTA_EXCEEDED');
    assert.equal(r.structuredContent.retryable, true);
    assert.match(r.structuredContent.message, /principal "[^"]+" already holds 3 live leases/);
  }
  const retry = await suite.s.call('vm_lease_create', { template: 'fake-desktop', owner: 'agent-0', request_id: 'q0' });
  assert.equal(retry.structuredContent.lease_id, made[0]!.structuredContent.lease_id, 'a retry of an existing request is not refused');
  const first = made[0]!.structuredContent.lease_id;
  await suite.s.call('vm_lease_release', { lease_id: first });
  for (let i = 0; i < 50 && (await suite.s.call('vm_lease_status', { lease_id: first })).structuredContent.status !== 'released'; i++) await new Promise((r) => setTimeout(r, 100));
  const again = await suite.s.call('vm_lease_create', { template: 'fake-desktop', request_id: 'q-after' });
  assert.equal(again.isError, undefined, 'a released lease frees its slot');
});

it('server: the instance limit answers HOST_CAPACITY', async () => {
  const b = sandbox({ leases: { max_per_owner: 10, max_total: 2 } });
  const c = await connect(b);
  try {
    await c.call('vm_lease_create', { template: 'fake-desktop', request_id: 'h1' });
    await c.call('vm_lease_create', { template: 'fake-desktop', request_id: 'h2' });
    const full = await c.call('vm_lease_create', { template: 'fake-desktop', request_id: 'h3' });
    assert.equal(errorCode(full), 'HOST_CAPACITY');
    assert.equal(full.structuredContent.retryable, true);
  } finally { await c.close(); b.cleanup(); }
});
