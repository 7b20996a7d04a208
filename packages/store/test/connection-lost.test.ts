// A PostgreSQL connection lost mid-call (through cut-proxy.ts). Cut after the server answered
// (the statement, or the transaction's COMMIT, committed; the client saw only a lost
// connection): the retried call returns what its committed attempt did, and the database shows
// each effect once. Cut before the query reached the server (nothing committed): the retry does
// it, once. One case per store write that can be retried.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { EventKind } from '../src/events.ts';
import type { LeaseStatus } from '../src/lifecycle.ts';
import type { LeaseRow, Store } from '../src/store.ts';
import { startCutProxy, type Cut, type CutPoint, type CutProxy } from './cut-proxy.ts';
import { forDialects } from './dialects.ts';

const ME = 'reaper:test:1:cutcut';
let n = 0;

async function seed(store: Store, status: LeaseStatus, o: { expires_at?: number; deadline_at?: number; claim?: string; machine?: boolean } = {}): Promise<LeaseRow> {
  const id = `c${++n}`;
  const now = Date.now();
  await store.createLease({ id, principal: 'tester', request_id: `req-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status, identity: `vmhub-cut-${id}`, created_at: now, expires_at: o.expires_at ?? now + 60_000, max_expires_at: now + 86_400_000, deadline_at: o.deadline_at ?? null });
  if (o.machine) await store.putMachine({ lease_id: id, identity: `vmhub-cut-${id}`, provider: 'fake', external_id: `m-${id}`, node: null, state: 'running', details: '{}' });
  if (o.claim) await store.updateLease(id, { claimed_by: o.claim, claim_expires_at: now + 60_000 });
  return (await store.getLease(id))!;
}

interface Case {
  name: string;
  /** The SQL the cut waits for: the statement itself, or COMMIT for a call that runs a transaction. */
  keyword: string;
  setup(store: Store): Promise<LeaseRow[]>;
  call(store: Store, leases: LeaseRow[]): Promise<unknown>;
  /** The call's answer is its committed attempt's, and the database holds each effect once. */
  check(store: Store, leases: LeaseRow[], result: unknown): Promise<void>;
}

const count = async (store: Store, leaseId: string, kind?: EventKind) => (await store.listEvents({ lease_id: leaseId, ...(kind ? { kind } : {}) })).length;

const CASES: Case[] = [
  {
    name: 'createLease', keyword: 'insert into "leases"',
    setup: async () => [],
    call: (store) => { const now = Date.now(); return store.createLease({ id: 'new-1', principal: 'tester', request_id: 'req-new-1', template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status: 'provisioning', identity: 'vmhub-cut-new-1', created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null }); },
    async check(store, _l, result) {
      const r = result as { lease: LeaseRow; created: boolean };
      assert.equal(r.created, true, 'the lease is ours: created');
      assert.equal(r.lease.id, 'new-1');
      const rows = await store.listLeases();
      assert.deepEqual(rows.map((l) => [l.id, l.request_id]), [['new-1', 'req-new-1']], 'one row');
    },
  },
  {
    name: 'transition', keyword: 'update "leases"',
    setup: async (store) => [await seed(store, 'provisioning')],
    call: (store, [l]) => store.transition(l!.id, 'provisioning', 'starting', { error_code: 'MOVED' }),
    async check(store, [l], result) {
      const row = result as LeaseRow | undefined;
      assert.equal(row?.id, l!.id, 'the transitioned row, not undefined');
      assert.equal(row?.status, 'starting');
      assert.equal(row?.error_code, 'MOVED');
      assert.equal((await store.getLease(l!.id))?.status, 'starting');
    },
  },
  {
    name: 'updateLease', keyword: 'update "leases"',
    setup: async (store) => [await seed(store, 'ready')],
    call: (store, [l]) => store.updateLease(l!.id, { stages: '["booted"]' }, ['ready']),
    async check(store, [l], result) {
      assert.equal((result as LeaseRow | undefined)?.stages, '["booted"]');
      assert.equal((await store.getLease(l!.id))?.stages, '["booted"]');
    },
  },
  {
    name: 'expireDue', keyword: 'commit',
    setup: async (store) => { const now = Date.now(); return [await seed(store, 'ready', { expires_at: now - 1000 }), await seed(store, 'starting', { expires_at: now - 1000 }), await seed(store, 'ready')]; },
    call: (store) => store.expireDue(Date.now(), ME),
    async check(store, [a, b, fine], result) {
      assert.deepEqual((result as { id: string }[]).map((e) => e.id).sort(), [a!.id, b!.id].sort(), 'the expired leases');
      for (const l of [a!, b!]) {
        assert.equal((await store.getLease(l.id))?.status, 'expired');
        assert.equal(await count(store, l.id, 'lease.expired'), 1, 'one event');
      }
      assert.equal((await store.getLease(fine!.id))?.status, 'ready');
      assert.equal(await count(store, fine!.id), 0);
    },
  },
  {
    name: 'failStuck', keyword: 'commit',
    setup: async (store) => { const now = Date.now(); return [await seed(store, 'provisioning', { deadline_at: now - 1000 }), await seed(store, 'starting', { deadline_at: now - 1000 })]; },
    call: (store) => store.failStuck(Date.now(), Date.now() - 600_000, ME),
    async check(store, leases, result) {
      const failed = result as { lease: LeaseRow }[];
      assert.deepEqual(failed.map((f) => f.lease.id).sort(), leases.map((l) => l.id).sort(), 'the failed leases');
      for (const f of failed) assert.equal(f.lease.error_code, 'BOOT_TIMEOUT');
      for (const l of leases) {
        assert.equal((await store.getLease(l.id))?.status, 'failed');
        assert.equal(await count(store, l.id, 'lease.failed'), 1, 'one event');
      }
    },
  },
  {
    name: 'claimMany', keyword: 'update "leases"',
    setup: async (store) => [await seed(store, 'expired'), await seed(store, 'expired'), await seed(store, 'expired', { claim: 'someone-else' })],
    call: (store, leases) => store.claimMany(leases.map((l) => l.id), ME, Date.now() + 60_000, ['expired']),
    async check(store, [a, b, held], result) {
      const r = result as { claimed: LeaseRow[]; elsewhere: { id: string }[] };
      assert.deepEqual(r.claimed.map((l) => l.id).sort(), [a!.id, b!.id].sort(), 'the claimed leases');
      assert.deepEqual(r.elsewhere.map((e) => e.id), [held!.id]);
      for (const l of [a!, b!]) assert.equal((await store.getLease(l.id))?.claimed_by, ME);
      assert.equal((await store.getLease(held!.id))?.claimed_by, 'someone-else');
    },
  },
  {
    name: 'recordTeardowns', keyword: 'commit',
    setup: async (store) => [await seed(store, 'expired', { claim: ME, machine: true }), await seed(store, 'expired', { claim: ME, machine: true })],
    call: (store, leases) => store.recordTeardowns(ME, leases.map((l) => ({ lease_id: l.id, outcome: 'destroyed', machine: 'destroyed' as const, final: { from: 'expired' as const, to: 'reaped' as const }, events: [{ kind: 'machine.destroyed' as const }] }))),
    async check(store, leases, result) {
      assert.deepEqual((result as { lease_id: string; to: string }[]).map((f) => [f.lease_id, f.to]).sort(), leases.map((l) => [l.id, 'reaped']).sort(), 'the finished leases');
      for (const l of leases) {
        const row = await store.getLease(l.id);
        assert.equal(row?.status, 'reaped');
        assert.equal(row?.claimed_by, null);
        assert.equal((await store.getMachine(l.id))?.state, 'destroyed');
        assert.equal(await count(store, l.id, 'lease.reaped'), 1, 'one lease.reaped');
        assert.equal(await count(store, l.id, 'machine.destroyed'), 1, 'one machine.destroyed');
      }
    },
  },
  {
    name: 'appendEvent', keyword: 'insert into "events"',
    setup: async (store) => [await seed(store, 'ready')],
    call: (store, [l]) => store.appendEvent({ lease_id: l!.id, actor: ME, kind: 'lease.renewed', data: { ttl: 60 } }),
    async check(store, [l]) {
      const events = await store.listEvents({ lease_id: l!.id });
      assert.deepEqual(events.map((e) => [e.kind, e.data]), [['lease.renewed', '{"ttl":60}']], 'one event');
    },
  },
  {
    name: 'takeover', keyword: 'insert into "lease_control"',
    setup: async (store) => [await seed(store, 'ready')],
    call: (store, [l]) => store.takeover(l!.id, 'person'),
    async check(store, [l], result) {
      const r = result as { since: number; changed: boolean };
      assert.equal(r.changed, true, 'the take-over is ours: changed');
      assert.equal((await store.heldBy(l!.id))?.since, r.since);
    },
  },
  {
    name: 'takeNote', keyword: 'update "lease_control"',
    setup: async (store) => { const l = await seed(store, 'ready'); await store.takeover(l.id, 'person'); await store.handback(l.id, 'the note'); return [l]; },
    call: (store, [l]) => store.takeNote(l!.id),
    async check(store, [l], result) {
      assert.equal(result, 'the note', 'the note its committed attempt took');
      assert.equal(await store.takeNote(l!.id), undefined, 'taken once');
    },
  },
];

forDialects('store: a connection lost mid-call', (d) => {
  let proxy: CutProxy;
  before(async () => { proxy = await startCutProxy({ port: d.server.port }); });
  after(() => proxy?.close());

  for (const point of ['after-answer', 'before-query'] as const satisfies readonly CutPoint[]) {
    for (const c of CASES) {
      it(`${c.name}: cut ${point === 'after-answer' ? 'after the server answered (committed)' : 'before the query reached the server'}`, { timeout: 60_000 }, async () => {
        const store = d.connect(proxy.url(await d.fresh(`cut_${c.name}`, { retry_ms: 30_000 })));
        const leases = await c.setup(store);
        const before = proxy.connections;
        let cut: Cut | undefined;
        const armed = proxy.arm(c.keyword, point).then((x) => { cut = x; });
        try {
          const result = await c.call(store, leases);
          await Promise.race([armed, new Promise((r) => setTimeout(r, 100))]);
          assert.ok(cut, `the proxy cut the connection at "${c.keyword}"`);
          assert.ok(cut.sql.toLowerCase().includes(c.keyword));
          // After the answer: the server completed the statement (or COMMIT) before the client lost it.
          if (point === 'after-answer') assert.match(cut.completed.join(','), c.keyword === 'commit' ? /^COMMIT$/ : /^(INSERT 0 [1-9]|UPDATE [1-9]\d*)$/);
          assert.ok(proxy.connections > before, 'the call reconnected');
          await c.check(store, leases, result);
        } finally {
          proxy.disarm();
        }
      });
    }
  }
}, { only: ['postgres'] });
