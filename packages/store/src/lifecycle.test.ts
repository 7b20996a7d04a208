// The lease state machine and the event vocabulary, enforced by the store on both dialects.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import { EVENT_KINDS, EventKindError } from './events.ts';
import { canTransition, FINAL_STATUSES, LEASE_STATUSES, LeaseTransitionError, OWNING_STATUSES, TRANSITIONS, type LeaseStatus } from './lifecycle.ts';
import { Store, type NewLease } from './store.ts';

let n = 0;
function lease(status: LeaseStatus): NewLease {
  const id = `l${++n}`;
  const now = Date.now();
  return { id, principal: 'tester', request_id: `req-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status, identity: `vmhub-test-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null };
}

forDialects('store: the lease state machine', (d) => {
  let store: Store;
  before(async () => { store = await d.open('machine'); });

  it('is the one in docs/architecture.md', () => {
    assert.deepEqual(TRANSITIONS, {
      provisioning: ['starting', 'failed', 'releasing', 'expired'],
      starting: ['ready', 'failed', 'releasing', 'expired'],
      ready: ['releasing', 'expired', 'failed', 'starting'],
      releasing: ['released'],
      expired: ['reaped'],
      released: [],
      failed: [],
      reaped: [],
    });
    assert.deepEqual([...FINAL_STATUSES].sort(), ['failed', 'reaped', 'released']);
    assert.deepEqual([...OWNING_STATUSES].sort(), ['expired', 'provisioning', 'ready', 'releasing', 'starting']);
  });

  it('every allowed transition works and writes the new status with the patch', async () => {
    let pairs = 0;
    for (const from of LEASE_STATUSES) {
      for (const to of TRANSITIONS[from] as readonly LeaseStatus[]) {
        const { lease: row } = await store.createLease(lease(from));
        const moved = await store.transition(row.id, from, to, { error_code: `T-${from}-${to}` });
        assert.equal(moved?.status, to, `${from} → ${to}`);
        assert.equal((await store.getLease(row.id))?.error_code, `T-${from}-${to}`);
        pairs++;
      }
    }
    assert.equal(pairs, 14);
  });

  it('every forbidden pair throws naming both states, before anything is written', async () => {
    let refused = 0;
    for (const from of LEASE_STATUSES) {
      for (const to of LEASE_STATUSES) {
        if (canTransition(from, to)) continue;
        const { lease: row } = await store.createLease(lease(from));
        // Typed as LeaseStatus, so only the run-time check stands between the call and the row.
        const [f, t]: LeaseStatus[] = [from, to];
        assert.throws(() => store.transition(row.id, [f], t, { error_code: 'WRITTEN' }), (err: unknown) =>
          err instanceof LeaseTransitionError && err.code === 'INVALID_TRANSITION' && err.message.includes(`${from} → ${to}`) && err.message.includes(row.id));
        assert.deepEqual(await store.getLease(row.id), row, `${from} → ${to} left the row untouched`);
        refused++;
      }
    }
    assert.equal(refused, 64 - 14);
  });

  it('a source list is refused when any one of its states may not move to the target', async () => {
    const { lease: row } = await store.createLease(lease('ready'));
    // @ts-expect-error releasing → expired is not a transition, so the compiler refuses the list too
    assert.throws(() => store.transition(row.id, ['ready', 'releasing'], 'expired'), /releasing → expired/);
    // @ts-expect-error provisioning → ready skips starting
    assert.throws(() => store.transition(row.id, 'provisioning', 'ready'), /provisioning → ready/);
    assert.throws(() => store.transition(row.id, [], 'expired' as never), /at least one source status/);
    assert.equal((await store.getLease(row.id))?.status, 'ready');
    assert.equal((await store.transition(row.id, ['provisioning', 'starting', 'ready'], 'expired'))?.status, 'expired');
  });

  it('status never moves through updateLease', async () => {
    const { lease: row } = await store.createLease(lease('ready'));
    assert.throws(() => store.updateLease(row.id, { status: 'released' } as never), /cannot set status.*transition\(\)/);
    assert.equal((await store.getLease(row.id))?.status, 'ready');
  });
});

forDialects('store: event kinds', (d) => {
  let store: Store;
  before(async () => { store = await d.open('events'); });

  it('covers every kind the server and the reaper write', () => {
    for (const kind of ['lease.created', 'lease.ready', 'lease.renewed', 'lease.releasing', 'lease.released', 'lease.expired', 'lease.failed', 'lease.reaped',
      'machine.destroyed', 'machine.already_gone', 'machine.identity_mismatch', 'orphan.found', 'orphan.destroyed', 'orphan.already_gone', 'reaper.teardown_error']) {
      assert.ok((EVENT_KINDS as readonly string[]).includes(kind), kind);
    }
  });

  it('refuses an unknown kind at run time and writes nothing', async () => {
    await assert.rejects(store.appendEvent({ lease_id: null, actor: 'test', kind: 'lease.touched' as never }), (err: unknown) =>
      err instanceof EventKindError && /unknown event kind "lease\.touched"/.test(err.message));
    // @ts-expect-error a kind outside EVENT_KINDS does not compile
    await assert.rejects(store.appendEvent({ lease_id: null, actor: 'test', kind: 'created' }), EventKindError);
    assert.equal((await store.listEvents()).length, 0);
    await store.appendEvent({ lease_id: null, actor: 'test', kind: 'orphan.found' });
    assert.deepEqual((await store.listEvents()).map((e) => e.kind), ['orphan.found']);
  });

  it('filters events by actor prefix', async () => {
    await store.appendEvent({ lease_id: null, actor: 'reaper:h:1:aa', kind: 'lease.expired' });
    await store.appendEvent({ lease_id: null, actor: 'server:h:2', kind: 'lease.expired' });
    await store.appendEvent({ lease_id: null, actor: 'reaperx', kind: 'lease.expired' });
    assert.deepEqual((await store.listEvents({ actorPrefix: 'reaper:' })).map((e) => e.actor), ['reaper:h:1:aa']);
  });
});
