// The reaper's whole-table sweeps on both dialects: expiry by TTL and hard cap, stuck provisioning,
// stuck releases, lingering machines, owned identities and providers in use.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import type { LeaseStatus, MachineState } from './lifecycle.ts';
import { Store, type LeaseRow, type NewLease } from './store.ts';

const ACTOR = 'reaper:test:1:abcdef';
let n = 0;

async function seed(store: Store, status: LeaseStatus, options: Partial<NewLease> & { machine?: MachineState } = {}): Promise<LeaseRow> {
  const { machine, ...o } = options;
  const id = `s${++n}`;
  const now = Date.now();
  const identity = `vmhub-test-${id}`;
  await store.createLease({ id, principal: 'tester', request_id: `req-${id}`, template: 't', adapter: 'fake', owner: 'o', identity, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null, ...o, provider: o.provider ?? 'fake', status });
  if (machine) await store.putMachine({ lease_id: id, identity, provider: o.provider ?? 'fake', external_id: `m-${id}`, node: null, state: machine, details: '{}' });
  return (await store.getLease(id))!;
}

forDialects('store: sweeps', (d) => {
  it('expireDue expires live leases past their TTL or hard cap, with one event each', async () => {
    const store = await d.open('expire');
    const now = Date.now();
    const ttl = await seed(store, 'ready', { expires_at: now - 1 });
    const cap = await seed(store, 'provisioning', { max_expires_at: now - 1 });
    const fine = await seed(store, 'starting');
    const releasing = await seed(store, 'releasing', { expires_at: now - 1 });
    const expired = await store.expireDue(now, ACTOR);
    assert.deepEqual(expired.map((e) => [e.id, e.from, e.reason]).sort(), [[ttl.id, 'ready', 'ttl'], [cap.id, 'provisioning', 'max_lifetime']].sort());
    assert.equal((await store.getLease(fine.id))?.status, 'starting');
    assert.equal((await store.getLease(releasing.id))?.status, 'releasing', 'a release in progress is not expired');
    const events = await store.listEvents({ kind: 'lease.expired' });
    assert.equal(events.length, 2);
    assert.ok(events.every((e) => e.actor === ACTOR));
    await store.close();
  });

  it('failStuck fails provisioning past its deadline (or past the fallback without one) with BOOT_TIMEOUT', async () => {
    const store = await d.open('stuck');
    const now = Date.now();
    const late = await seed(store, 'starting', { deadline_at: now - 1 });
    const old = await seed(store, 'provisioning', { created_at: now - 10_000 });
    const young = await seed(store, 'provisioning', { created_at: now });
    const ready = await seed(store, 'ready', { deadline_at: now - 1 });
    const failed = await store.failStuck(now, now - 5_000, ACTOR);
    assert.deepEqual(failed.map((f) => [f.lease.id, f.from]).sort(), [[late.id, 'starting'], [old.id, 'provisioning']].sort());
    for (const f of failed) {
      assert.equal(f.lease.status, 'failed');
      assert.equal(f.lease.error_code, 'BOOT_TIMEOUT');
      assert.match(f.lease.error_message!, /^\[vmhub\] \[reaper\] lease stuck in (provisioning|starting) past its deadline/);
    }
    assert.equal((await store.getLease(young.id))?.status, 'provisioning');
    assert.equal((await store.getLease(ready.id))?.status, 'ready');
    assert.equal((await store.listEvents({ kind: 'lease.failed' })).length, 2);
    await store.close();
  });

  it('finds stuck releases, lingering machines, owned identities and the providers in use', async () => {
    const store = await d.open('find');
    const now = Date.now();
    const dead = await seed(store, 'releasing');
    await store.updateLease(dead.id, { claimed_by: 'server:dead', claim_expires_at: now - 10_000 });
    const held = await seed(store, 'releasing');
    await store.updateLease(held.id, { claimed_by: 'server:alive', claim_expires_at: now + 60_000 });
    const unclaimedOld = await seed(store, 'releasing');
    await store.updateLease(unclaimedOld.id, { updated_at: now - 10_000 });
    assert.deepEqual((await store.stuckReleases(now - 5_000)).map((l) => l.id).sort(), [dead.id, unclaimedOld.id].sort());

    const lingering = await seed(store, 'released', { machine: 'running', provider: 'docker' });
    await store.updateLease(lingering.id, { updated_at: now - 10_000 });
    const settled = await seed(store, 'reaped', { machine: 'destroyed' });
    await store.updateLease(settled.id, { updated_at: now - 10_000 });
    const recent = await seed(store, 'failed', { machine: 'running' });
    assert.deepEqual((await store.lingering(now - 5_000)).map((l) => l.id), [lingering.id]);
    assert.equal((await store.getLease(recent.id))?.status, 'failed');

    const expired = await seed(store, 'expired', { provider: 'qemu' });
    const owned = await store.ownedIdentities();
    for (const l of [dead, held, unclaimedOld, expired]) assert.ok(owned.has(l.identity), l.status);
    for (const l of [lingering, settled, recent]) assert.ok(!owned.has(l.identity), l.status);
    assert.deepEqual([...await store.providersInUse()].sort(), ['docker', 'fake', 'qemu'], 'unfinished leases (fake, qemu) and unsettled machines (docker)');

    const byIdentity = await store.leasesByIdentity([expired.identity, 'vmhub-test-none']);
    assert.deepEqual([...byIdentity.keys()], [expired.identity]);
    await store.close();
  });
});
