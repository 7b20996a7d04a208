// A lease's screen mapping (migration 10), on both dialects: two Store handles on one database
// stand for two server processes. What one writes the other reads; the last write wins; leases
// are apart.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forDialects } from '../test/dialects.ts';

forDialects('store: lease screens', (d) => {
  it('one process writes the mapping of its screenshot, the other reads it; the last write wins', async () => {
    const db = await d.fresh('screens');
    const a = d.connect(db);
    const b = d.connect(db);
    assert.equal(await b.leaseScreen('l1'), undefined, 'no screenshot yet');
    const half = JSON.stringify({ scale: 0.5, origin: { x: 0, y: 0 }, width: 1280, height: 720, screen: { width: 2560, height: 1440 } });
    await a.setLeaseScreen('l1', half);
    assert.equal(await b.leaseScreen('l1'), half);
    const zoom = JSON.stringify({ scale: 2, origin: { x: 100, y: 50 }, width: 400, height: 300, screen: { width: 2560, height: 1440 } });
    await b.setLeaseScreen('l1', zoom);
    assert.equal(await a.leaseScreen('l1'), zoom);
    assert.equal(await a.leaseScreen('l2'), undefined);
  });
});
