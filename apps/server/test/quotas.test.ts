// Lease limits: per owner (QUOTA_EXCEEDED) and per instance (HOST_CAPACITY); both retryable, and
// an idempotent retry of an existing request is never refused by them.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { connect, errorCode, sandbox, type Sandbox, type Session } from './harness.ts';

let box: Sandbox;
let s: Session;
before(async () => { box = sandbox({ leases: { max_per_owner: 2, max_total: 3 } }); s = await connect(box); });
after(async () => { await s.close(); box.cleanup(); });

it('server: per-owner and per-instance lease limits', async () => {
  const a1 = await s.call('vm_lease_create', { template: 'fake-desktop', owner: 'alice', request_id: 'a1' });
  await s.call('vm_lease_create', { template: 'fake-desktop', owner: 'alice', request_id: 'a2' });
  const a3 = await s.call('vm_lease_create', { template: 'fake-desktop', owner: 'alice', request_id: 'a3' });
  assert.equal(errorCode(a3), 'QUOTA_EXCEEDED');
  assert.equal(a3.structuredContent.retryable, true);
  const retry = await s.call('vm_lease_create', { template: 'fake-desktop', owner: 'alice', request_id: 'a1' });
  assert.equal(retry.structuredContent.lease_id, a1.structuredContent.lease_id, 'a retry of an existing request is not refused');
  await s.call('vm_lease_create', { template: 'fake-desktop', owner: 'bob', request_id: 'b1' });
  const b2 = await s.call('vm_lease_create', { template: 'fake-desktop', owner: 'bob', request_id: 'b2' });
  assert.equal(errorCode(b2), 'HOST_CAPACITY');
  await s.call('vm_lease_release', { lease_id: a1.structuredContent.lease_id });
  for (let i = 0; i < 50 && (await s.call('vm_lease_status', { lease_id: a1.structuredContent.lease_id })).structuredContent.status !== 'released'; i++) await new Promise((r) => setTimeout(r, 100));
  const again = await s.call('vm_lease_create', { template: 'fake-desktop', owner: 'bob', request_id: 'b3' });
  assert.equal(again.isError, undefined, 'a released lease frees its slot');
});
