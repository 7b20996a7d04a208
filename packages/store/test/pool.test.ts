// Connection pooling: with pool_max=3, forty concurrent store calls all succeed, and
// pg_stat_activity (polled from another connection throughout) never shows more than three
// connections named 'vmhub' for that database; the pool grew to exactly three.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forDialects } from './dialects.ts';
import { withClient } from './pg-client.ts';

forDialects('store: connection pool', (d) => {
  it('pool_max=3: 40 concurrent calls succeed on at most 3 connections', { timeout: 60_000 }, async () => {
    const url = await d.fresh('pool', { pool_max: 3 });
    const db = new URL(url).pathname.slice(1);
    const store = d.connect(url);
    await store.ready();
    await withClient(url, async (watcher) => {
      const vmhubConnections = async () => Number((await watcher.query<{ n: string }>("select count(*) as n from pg_stat_activity where datname = $1 and application_name = 'vmhub'", [db])).rows[0]!.n);
      let max = 0;
      let polls = 0;
      let done = false;
      const poll = (async () => {
        while (!done) {
          max = Math.max(max, await vmhubConnections());
          polls++;
        }
      })();
      const now = Date.now();
      const calls = Array.from({ length: 40 }, (_, i) => {
        const id = `p${i}`;
        if (i % 4 === 0) return store.listLeases();
        if (i % 4 === 1) return store.countLeases({ status: ['provisioning'] });
        return store.createLease({ id, principal: 'tester', request_id: `req-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status: 'provisioning', identity: `vmhub-pool-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null })
          .then((r) => { assert.equal(r.created, true); return store.transition(id, 'provisioning', 'starting'); })
          .then((row) => assert.equal(row?.status, 'starting'));
      });
      const results = await Promise.allSettled(calls);
      done = true;
      await poll;
      assert.deepEqual(results.filter((r) => r.status === 'rejected'), [], 'every call succeeded');
      assert.equal(await store.countLeases({ status: ['starting'] }), 20);
      assert.ok(polls > 0);
      assert.ok(max <= 3, `at most 3 vmhub connections, saw ${max}`);
      assert.equal(await vmhubConnections(), 3, 'the pool grew to pool_max and no further');
    });
  });
}, { only: ['postgres'] });
