// 50 concurrent vm_lease_create with one request_id, from two server processes sharing one
// database → exactly one lease and exactly one machine created.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { readFakeLedger } from '@vmhub/conformance/fake';
import { Store } from '@vmhub/store';
import { connect, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';

let box: Sandbox;
let a: Session;
let b: Session;
before(async () => { box = sandbox(); [a, b] = await Promise.all([connect(box, {}, 'client-a'), connect(box, {}, 'client-b')]); });
after(async () => { await Promise.all([a.close(), b.close()]); box.cleanup(); });

it('server: 50 concurrent creates with one request_id across two processes → one machine', async () => {
  const calls = Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).call('vm_lease_create', { template: 'fake-desktop', request_id: 'same-request' }));
  const results = await Promise.all(calls);
  for (const r of results) assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  const ids = new Set(results.map((r) => r.structuredContent.lease_id));
  assert.equal(ids.size, 1, 'every call got the same lease');
  const leaseId = [...ids][0] as string;
  const lease = await waitReady(a, leaseId);
  assert.equal(lease.status, 'ready');
  const fromB = await b.call('vm_lease_status', { lease_id: leaseId });
  assert.equal(fromB.structuredContent.status, 'ready', 'the other process sees the same lease');
  const ledger = await readFakeLedger(box.fakeDir);
  assert.equal(ledger.filter((e) => e.op === 'create').length, 1, `exactly one machine created: ${JSON.stringify(ledger)}`);
  const store = new Store({ path: box.db });
  assert.equal((await store.listLeases()).length, 1);
  await store.close();
  const released = await b.call('vm_lease_release', { lease_id: leaseId });
  assert.equal(released.structuredContent.status, 'released');
  assert.equal((await readFakeLedger(box.fakeDir)).filter((e) => e.op === 'destroy').length, 1);
});
