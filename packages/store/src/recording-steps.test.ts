// Step numbers of a lease's recording (migration 10), on both dialects: two Store handles on one
// database stand for two server processes serving one lease in turn. Numbers taken at once by
// both never overlap and leave no gap; a recording written before its first number continues
// after its own steps; leases are numbered apart.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forDialects } from '../test/dialects.ts';

forDialects('store: recording step numbers', (d) => {
  it('two processes taking numbers at once get disjoint ranges, one after another, per lease', async () => {
    const db = await d.fresh('recsteps');
    const a = d.connect(db);
    const b = d.connect(db);
    const sizes = Array.from({ length: 40 }, (_, i) => 1 + (i % 3));
    const lasts = await Promise.all(sizes.map((n, i) => (i % 2 ? a : b).takeRecordingSteps('lease-1', n)));
    const taken = sizes.flatMap((n, i) => Array.from({ length: n }, (_, k) => lasts[i]! - n + 1 + k)).sort((x, y) => x - y);
    const total = sizes.reduce((x, y) => x + y, 0);
    assert.deepEqual(taken, Array.from({ length: total }, (_, k) => k + 1), 'every number from 1 once: no overlap, no gap');

    assert.equal(await a.takeRecordingSteps('lease-2', 2, 7), 9, 'a recording that already held 7 steps continues at 8');
    assert.equal(await b.takeRecordingSteps('lease-2', 1, 7), 10, 'the floor counts only before the first number');
    assert.equal(await b.takeRecordingSteps('lease-1', 1), total + 1);
  });
});
