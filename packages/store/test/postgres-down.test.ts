// PostgreSQL down, then back: while the server is stopped (or crashed) every store call fails
// with StoreUnavailableError (code STORE_UNAVAILABLE, retryable, after its retry window, naming
// the masked URL and never the password); once PostgreSQL answers again the same Store object
// works without being reopened, and what was committed before is still there.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { StoreUnavailableError } from '../src/errors.ts';
import type { NewLease, Store } from '../src/store.ts';
import { forDialects } from './dialects.ts';
import { withClient } from './pg-client.ts';

let n = 0;
function lease(): NewLease {
  const id = `d${++n}`;
  const now = Date.now();
  return { id, principal: 'tester', request_id: `req-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status: 'provisioning', identity: `vmhub-down-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null };
}

function unavailable(masked: string, password: string) {
  return (err: unknown) => {
    assert.ok(err instanceof StoreUnavailableError, `a StoreUnavailableError, not ${String(err)}`);
    assert.equal(err.code, 'STORE_UNAVAILABLE');
    assert.equal(err.retryable, true);
    assert.ok(err.message.includes(masked), `names ${masked}: ${err.message}`);
    assert.ok(!err.message.includes(password), 'never the password');
    assert.match(err.message, /retried \d+× over 500 ms/, 'after the retry window');
    return true;
  };
}

/** Every kind of call fails typed while the database is gone (several at once, as a busy server makes them). */
async function allUnavailable(store: Store, id: string, masked: string, password: string): Promise<void> {
  const calls: Promise<unknown>[] = [
    store.getLease(id),
    store.createLease(lease()),
    store.transition(id, 'provisioning', 'starting'),
    store.listLeases(),
    store.expireDue(Date.now(), 'reaper:test'),
    store.appendEvent({ lease_id: id, actor: 'test', kind: 'lease.renewed' }),
  ];
  // Every promise gets its handler now: awaiting them one by one would leave the later ones
  // rejecting with no handler while the first is awaited (an unhandled rejection fails the test).
  await Promise.all(calls.map((c) => assert.rejects(c, unavailable(masked, password))));
}

forDialects('store: PostgreSQL down', (d) => {
  it('stopped: calls fail with STORE_UNAVAILABLE; after start() the same Store works again', { timeout: 120_000 }, async () => {
    const url = await d.fresh('down', { retry_ms: 500 });
    const password = decodeURIComponent(new URL(url).password);
    const store = d.connect(url);
    const first = await store.createLease(lease());
    assert.equal(store.path.includes('***'), true);
    d.server.stop();
    try {
      await allUnavailable(store, first.lease.id, store.path, password);
    } finally {
      d.server.start();
    }
    assert.equal((await store.getLease(first.lease.id))?.id, first.lease.id, 'committed before the stop, still there');
    const second = await store.createLease(lease());
    assert.equal(second.created, true);
    assert.equal((await store.transition(second.lease.id, 'provisioning', 'starting'))?.status, 'starting');
    assert.equal((await store.listLeases()).length, 2, 'no lease lost or duplicated');
  });

  it('crashed (SIGKILL): calls fail with STORE_UNAVAILABLE; after recovery the same Store works again', { timeout: 120_000 }, async () => {
    const url = await d.fresh('crash', { retry_ms: 500 });
    const password = decodeURIComponent(new URL(url).password);
    const store = d.connect(url);
    const first = await store.createLease(lease());
    // synchronous_commit is off on the test server: make the commit durable before the crash.
    await withClient(url, (c) => c.query('checkpoint'));
    d.server.kill();
    try {
      await allUnavailable(store, first.lease.id, store.path, password);
    } finally {
      d.server.start();
    }
    assert.equal((await store.getLease(first.lease.id))?.status, 'provisioning', 'committed before the crash, still there');
    const second = await store.createLease(lease());
    assert.equal(second.created, true);
    assert.equal((await store.createLease({ ...lease(), request_id: second.lease.request_id })).created, false, 'request_id still unique');
    assert.equal((await store.listLeases()).length, 2);
  });
}, { only: ['postgres'] });
