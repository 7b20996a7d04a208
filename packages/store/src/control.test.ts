// Who drives a lease, shared through the store (migration 6): two Store handles on one database
// stand for two server processes. A take-over made through one is seen by the other's next read;
// the hand-back note is taken exactly once, whichever handle asks (also when both ask at once).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import type { NewLease } from './store.ts';

function lease(id: string): NewLease {
  const now = Date.now();
  return { id, principal: 'alice', request_id: `req-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: null, status: 'provisioning', identity: `vmhub-test-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null };
}

forDialects('store: lease control', (d) => {
  it('a take-over through one process is held for every other; the note is taken once', async () => {
    const path = await d.fresh('control');
    const a = d.connect(path);
    const b = d.connect(path);
    await a.createLease(lease('l1'));
    assert.equal(await b.heldBy('l1'), undefined, 'nobody took it over yet: the agent drives');

    const first = await a.takeover('l1', 'default');
    assert.equal(first.changed, true);
    const seen = await b.heldBy('l1');
    assert.equal(seen?.since, first.since);
    assert.equal(seen?.by, 'default');
    assert.equal(seen?.allowCommandsAndFiles, false);

    // Again, from the other process, allowing commands: same take-over, new allowance.
    const again = await b.takeover('l1', 'someone-else', { allowCommandsAndFiles: true });
    assert.deepEqual(again, { since: first.since, changed: false, allowChanged: true });
    assert.equal((await a.heldBy('l1'))?.by, 'default', 'the first holder stays');
    assert.equal((await a.heldBy('l1'))?.allowCommandsAndFiles, true);

    assert.deepEqual(await b.handback('l1', 'saved the draft'), { changed: true });
    assert.equal(await a.heldBy('l1'), undefined);
    assert.deepEqual(await a.handback('l1', 'twice'), { changed: false }, 'a second hand-back changes nothing, nor the note');
    assert.equal((await a.leaseControls(['l1'])).get('l1')?.note, 'saved the draft');

    const taken = await Promise.all([a.takeNote('l1'), b.takeNote('l1'), a.takeNote('l1'), b.takeNote('l1')]);
    assert.deepEqual(taken.filter((n) => n !== undefined), ['saved the draft'], 'one caller gets the note');
    assert.equal(await a.takeNote('l1'), undefined);
    assert.equal(await b.takeNote('never-taken-over'), undefined);
    assert.deepEqual([...(await b.leaseControls(['l1', 'nope'])).keys()], ['l1']);
  });
});
