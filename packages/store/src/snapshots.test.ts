// Snapshots on both dialects: recorded with their event, seen by their principal's filter,
// counted (live ones and their bytes), deleted under one claim at a time (a lapsed claim taken
// over), tombstoned with the provider's answer, and due for the reaper once expired.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import type { NewSnapshot } from './snapshots.ts';
import { Store } from './store.ts';

let n = 0;

async function lease(store: Store): Promise<string> {
  const id = `s${++n}`;
  const now = Date.now();
  await store.createLease({ id, principal: 'p', request_id: `r-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status: 'ready', identity: `vmhub-test-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null });
  return id;
}

function snap(leaseId: string, over: Partial<NewSnapshot> = {}): NewSnapshot {
  const id = `snap-${++n}`;
  const now = Date.now();
  return { id, principal: 'alice', lease_id: leaseId, template: 't', provider: 'fake', identity: `vmhub-test-snap-${id}`, external_id: `x-${id}`, details: { dir: '/d' }, memory: true, size_bytes: 1000, created_at: now, expires_at: now + 3_600_000, ...over };
}

forDialects('store: snapshots', (d) => {
  let store: Store;
  before(async () => { store = await d.open('snapshots'); });

  it('a snapshot is recorded ready with its event, and listed for its principal only', async () => {
    const l = await lease(store);
    const a = await store.addSnapshot(snap(l, { name: 'before upgrade', size_bytes: 5 * 1024 ** 3 }), 'server:test');
    assert.equal(a.state, 'ready');
    assert.equal(a.memory, true);
    assert.equal(a.size_bytes, 5 * 1024 ** 3, 'BIGINT sizes come back as numbers');
    assert.deepEqual(a.details, { dir: '/d' });
    assert.equal(a.name, 'before upgrade');
    const again = await store.addSnapshot(snap(l, { id: a.id, identity: a.identity }), 'server:test').catch((e: Error) => e);
    assert.ok(!(again instanceof Error) && again.id === a.id, 'a retried insert finds its own row');
    await store.addSnapshot(snap(l, { principal: 'bob' }), 'server:test');
    assert.deepEqual((await store.listSnapshots({ principal: 'alice', lease_id: l })).map((s) => s.id), [a.id]);
    const events = await store.listEvents({ lease_id: l, kind: 'snapshot.created' });
    assert.equal(events.length, 2, 'one event per snapshot, none for the retry');
    assert.equal(JSON.parse(events[0]!.data).snapshot, a.id);
    const usage = await store.snapshotUsage('alice');
    assert.ok(usage.count >= 1 && usage.bytes >= 5 * 1024 ** 3);
  });

  it('deletion: one claim at a time, a lapsed claim taken over, tombstoned with the outcome', async () => {
    const l = await lease(store);
    const s = await store.addSnapshot(snap(l), 'server:test');
    const before = await store.snapshotUsage();
    const mine = await store.claimSnapshot(s.id, 'server:a', Date.now() + 60_000);
    assert.equal(mine?.state, 'deleting');
    assert.equal(await store.claimSnapshot(s.id, 'reaper:b', Date.now() + 60_000), undefined, 'held by another');
    await store.snapshotDeleteFailed(s.id, 'server:a', 'backend said no');
    const taken = await store.claimSnapshot(s.id, 'reaper:b', Date.now() + 60_000);
    assert.equal(taken?.attempts, 1);
    assert.equal(taken?.last_error, 'backend said no');
    assert.equal(await store.snapshotDeleted(s.id, 'server:a', 'destroyed', 'deleted by the agent'), false, 'not the holder any more');
    assert.equal(await store.snapshotDeleted(s.id, 'reaper:b', 'destroyed', 'expired'), true);
    const gone = await store.getSnapshot(s.id);
    assert.equal(gone?.state, 'deleted');
    assert.equal(gone?.outcome, 'destroyed');
    assert.equal((await store.snapshotUsage()).bytes, before.bytes - s.size_bytes, 'a deleted snapshot holds no disk');
    assert.equal(await store.claimSnapshot(s.id, 'server:a', Date.now() + 60_000), undefined, 'a tombstone is never claimed');
    assert.equal((await store.listEvents({ lease_id: l, kind: 'snapshot.deleted' })).length, 1);
  });

  it('due for the reaper: expired ready ones and lapsed deletions; a live row spares its identity', async () => {
    const l = await lease(store);
    const now = Date.now();
    const expired = await store.addSnapshot(snap(l, { expires_at: now - 1000 }), 'server:test');
    const fresh = await store.addSnapshot(snap(l), 'server:test');
    const due = (await store.dueSnapshots(now)).map((s) => s.id);
    assert.ok(due.includes(expired.id));
    assert.ok(!due.includes(fresh.id));
    assert.equal(await store.claimSnapshot(fresh.id, 'reaper:x', now + 60_000, now), undefined, 'the reaper claims only expired ones');
    assert.equal((await store.claimSnapshot(expired.id, 'reaper:x', now + 60_000, now))?.state, 'deleting');
    const live = await store.liveSnapshotIdentities([expired.identity, fresh.identity, 'vmhub-test-snap-unknown']);
    assert.deepEqual([...live].sort(), [expired.identity, fresh.identity].sort());
    assert.equal(await store.hasWork(), true, 'live snapshots keep a reaper running');
  });
});
