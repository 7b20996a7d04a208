// The statement timeout: another connection holds a lease's row lock (BEGIN; SELECT … FOR
// UPDATE); transition on that row, with statement_timeout_ms=300, fails at once with
// StoreUnavailableError naming the statement timeout instead of waiting; after the lock is
// released the same call works.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { StoreUnavailableError } from '../src/errors.ts';
import { forDialects } from './dialects.ts';
import { withClient } from './pg-client.ts';

forDialects('store: statement timeout', (d) => {
  it('a transition blocked by a row lock times out with STORE_UNAVAILABLE, and works once the lock is gone', { timeout: 60_000 }, async () => {
    const url = await d.fresh('locked', { statement_timeout_ms: 300 });
    const store = d.connect(url);
    const now = Date.now();
    await store.createLease({ id: 'l1', principal: 'tester', request_id: 'req-l1', template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status: 'provisioning', identity: 'vmhub-lock-l1', created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null });
    await withClient(url, async (locker) => {
      await locker.query('BEGIN');
      const held = await locker.query("select id from leases where id = 'l1' for update");
      assert.equal(held.rowCount, 1);
      await assert.rejects(store.transition('l1', 'provisioning', 'starting'), (err: unknown) =>
        err instanceof StoreUnavailableError && err.code === 'STORE_UNAVAILABLE' && /statement timeout/.test(err.message) && /statement_timeout_ms/.test(err.message) && !err.message.includes('vmhub-test-password'));
      assert.equal((await store.getLease('l1'))?.status, 'provisioning', 'reads are not blocked, and nothing moved');
      await locker.query('ROLLBACK');
    });
    assert.equal((await store.transition('l1', 'provisioning', 'starting'))?.status, 'starting');
    assert.equal((await store.getLease('l1'))?.status, 'starting');
  });
}, { only: ['postgres'] });
