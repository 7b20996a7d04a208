// A lease's screen mapping (migration 10), on both dialects: two Store handles on one database
// stand for two server processes. What one writes the other reads, in the same read as the lease
// row; the last write wins; leases are apart.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import type { Store } from './store.ts';

async function lease(store: Store, id: string): Promise<void> {
  const now = Date.now();
  await store.createLease({ id, principal: 'alice', request_id: `req-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status: 'ready', identity: `vmhub-test-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null });
}

forDialects('store: lease screens', (d) => {
  it('one process writes the mapping of its screenshot, the other reads it with the lease row; the last write wins', async () => {
    const db = await d.fresh('screens');
    const a = d.connect(db);
    const b = d.connect(db);
    await lease(a, 'l1');
    await lease(a, 'l2');
    const first = await b.getLeaseWithScreen('l1');
    assert.deepEqual(first?.lease, await b.getLease('l1'), 'the whole lease row, the same as getLease');
    assert.equal(first?.screen, undefined, 'no screenshot yet');
    const half = JSON.stringify({ scale: 0.5, origin: { x: 0, y: 0 }, width: 1280, height: 720, screen: { width: 2560, height: 1440 } });
    await a.setLeaseScreen('l1', half);
    const read = await b.getLeaseWithScreen('l1');
    assert.equal(read?.screen, half);
    assert.deepEqual(read?.lease, await b.getLease('l1'), 'the mapping\'s own updated_at does not replace the lease\'s');
    const zoom = JSON.stringify({ scale: 2, origin: { x: 100, y: 50 }, width: 400, height: 300, screen: { width: 2560, height: 1440 } });
    await b.setLeaseScreen('l1', zoom);
    assert.equal((await a.getLeaseWithScreen('l1'))?.screen, zoom);
    assert.equal((await a.getLeaseWithScreen('l2'))?.screen, undefined);
    assert.equal(await a.getLeaseWithScreen('nope'), undefined, 'an unknown lease');
  });
});
