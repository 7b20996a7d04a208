// Warm pools in the store, on both dialects: a claim hands out each ready pool lease once, even to
// claimers racing (on PostgreSQL on two connections); only the named pool's ready, unexpired leases are claimed;
// holding never touches a lease once claimed and never passes a lease's max lifetime.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import type { LeaseStatus } from './lifecycle.ts';
import { POOL_PRINCIPAL } from './pools.ts';
import { Store, type LeaseRow } from './store.ts';

const POOL = 'pool:t:0123456789ab';
let n = 0;

async function pooled(store: Store, options: { status?: LeaseStatus; owner?: string; expires_in?: number; max_in?: number } = {}): Promise<LeaseRow> {
  const id = `p${++n}`;
  const now = Date.now();
  const { lease } = await store.createLease({
    id, request_id: `pool:${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: options.owner ?? POOL, principal: POOL_PRINCIPAL,
    status: options.status ?? 'ready', identity: `vmhub-test-${id}`, created_at: now + n, expires_at: now + (options.expires_in ?? 60_000),
    max_expires_at: now + (options.max_in ?? 86_400_000), deadline_at: null,
  });
  return lease;
}

const claim = (store: Store, who: string) => {
  const now = Date.now();
  return store.claimPooled({ template: 't', pool: POOL, request_id: `req-${who}`, principal: who, owner: `label-${who}`, expires_at: now + 3_600_000, max_expires_at: now + 86_400_000, actor: 'server:test:1' });
};

forDialects('store: warm pools', (d) => {
  it('claims hand out each ready pool lease once, also to claimers racing (on PostgreSQL on two connections)', { timeout: 60_000 }, async () => {
    const path = await d.fresh('race');
    const a = d.connect(path);
    // Two connections in one process on SQLite would block each other's event loop (better-sqlite3
    // waits synchronously on a lock); servers on one SQLite file are separate processes. So on
    // SQLite the claims race on one connection, on PostgreSQL on two.
    const b = d.kind === 'sqlite' ? a : d.connect(path);
    const ready = await Promise.all([pooled(a), pooled(a), pooled(a)]);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(i % 2 ? b : a, `agent${i}`)));
    const won = results.filter((r): r is LeaseRow => r !== undefined);
    assert.equal(won.length, 3, 'three ready leases, three winners');
    assert.deepEqual(new Set(won.map((r) => r.id)), new Set(ready.map((r) => r.id)));
    for (const r of won) {
      assert.notEqual(r.principal, POOL_PRINCIPAL);
      assert.equal(r.request_id, `req-${r.principal}`);
      assert.equal(r.owner, `label-${r.principal}`);
      assert.equal(r.status, 'ready');
      const events = await a.listEvents({ lease_id: r.id });
      assert.deepEqual(events.map((e) => e.kind), ['lease.claimed']);
      assert.equal(JSON.parse(events[0]!.data).pool, POOL);
    }
    assert.equal(await claim(a, 'late'), undefined, 'the pool is empty');
  });

  it('only the named pool\'s ready, unexpired leases are claimed, oldest first', async () => {
    const store = await d.open('filters');
    await pooled(store, { owner: 'pool:t:another-def' });
    await pooled(store, { status: 'starting' });
    await pooled(store, { expires_in: -1 });
    await pooled(store, { max_in: -1 });
    assert.equal(await claim(store, 'nobody'), undefined);
    const older = await pooled(store);
    await pooled(store);
    assert.equal((await claim(store, 'first'))?.id, older.id);
  });

  it('holding pushes expiry up to the max lifetime and never touches a claimed lease', async () => {
    const store = await d.open('hold');
    const capped = await pooled(store, { max_in: 10_000 });
    const free = await pooled(store);
    const taken = await pooled(store);
    const claimed = await claim(store, 'holder');
    assert.equal(claimed?.id, capped.id);
    // `capped` (the oldest) was claimed: holding all three changes the other two only.
    const agentsExpiry = claimed!.expires_at;
    const until = Date.now() + 120_000;
    assert.equal(await store.holdPooled([capped.id, free.id, taken.id], until), 2);
    assert.equal((await store.getLease(capped.id))!.expires_at, agentsExpiry, 'a claimed lease keeps its agent\'s expiry');
    assert.equal((await store.getLease(free.id))!.expires_at, until);
    const short = await pooled(store, { max_in: 5_000 });
    await store.holdPooled([short.id], until);
    assert.equal((await store.getLease(short.id))!.expires_at, short.max_expires_at, 'never past the max lifetime');
  });
});
