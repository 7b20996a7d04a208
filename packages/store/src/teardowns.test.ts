// Claims and teardown records on both dialects (the reaper's and the server's teardown path);
// machineRef needs no database.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import { machineRef } from './machine-ref.ts';
import type { LeaseStatus } from './lifecycle.ts';
import { Store, type LeaseRow } from './store.ts';


const ME = 'reaper:test:1:aaaaaa';
const OTHER = 'server:test:2';
let n = 0;

async function seed(store: Store, status: LeaseStatus, o: { claim?: { by: string; until: number }; machine?: boolean } = {}): Promise<LeaseRow> {
  const id = `t${++n}`;
  const now = Date.now();
  const identity = `vmhub-test-${id}`;
  await store.createLease({ id, principal: 'tester', request_id: `req-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status, identity, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null });
  if (o.machine !== false) await store.putMachine({ lease_id: id, identity, provider: 'fake', external_id: `m-${id}`, node: null, state: 'running', details: '{}' });
  if (o.claim) await store.updateLease(id, { claimed_by: o.claim.by, claim_expires_at: o.claim.until });
  return (await store.getLease(id))!;
}

forDialects('store: claims', (d) => {
  let store: Store;
  before(async () => { store = await d.open('claims'); });

  it('claimMany takes free and lapsed claims, never another holder\'s live one, and says who holds it', async () => {
    const now = Date.now();
    const free = await seed(store, 'expired');
    const held = await seed(store, 'expired', { claim: { by: OTHER, until: now + 60_000 } });
    const lapsed = await seed(store, 'expired', { claim: { by: OTHER, until: now - 1 } });
    const mine = await seed(store, 'expired', { claim: { by: ME, until: now + 1000 } });
    const moved = await seed(store, 'ready');
    const r = await store.claimMany([free.id, held.id, lapsed.id, mine.id, moved.id], ME, now + 30_000, ['expired']);
    assert.deepEqual(r.claimed.map((l) => l.id).sort(), [free.id, lapsed.id, mine.id].sort());
    for (const l of r.claimed) assert.equal(l.claimed_by, ME);
    assert.deepEqual(r.elsewhere, [{ id: held.id, claimed_by: OTHER }], 'a lease that left the status is not "elsewhere"');
    const still = await store.getLease(held.id);
    assert.equal(still?.claimed_by, OTHER);
    assert.equal(still?.claim_expires_at, held.claim_expires_at, 'the other holder\'s claim is untouched');
    assert.equal((await store.getLease(moved.id))?.claimed_by, null);
    assert.equal(await store.claim(held.id, ME, now + 30_000, ['expired']), undefined);
  });

  it('renewClaims extends only the claims the caller holds', async () => {
    const now = Date.now();
    const mine = await seed(store, 'expired', { claim: { by: ME, until: now + 1000 } });
    const theirs = await seed(store, 'expired', { claim: { by: OTHER, until: now + 1000 } });
    await store.renewClaims([mine.id, theirs.id], ME, now + 99_000);
    assert.equal((await store.getLease(mine.id))?.claim_expires_at, now + 99_000);
    assert.equal((await store.getLease(theirs.id))?.claim_expires_at, now + 1000);
  });

  it('machinesFor reads machine rows by lease id', async () => {
    const a = await seed(store, 'ready');
    const b = await seed(store, 'ready', { machine: false });
    const rows = await store.machinesFor([a.id, b.id]);
    assert.deepEqual([...rows.keys()], [a.id]);
    assert.equal(rows.get(a.id)?.external_id, `m-${a.id}`);
  });
});

forDialects('store: teardown records', (d) => {
  let store: Store;
  before(async () => { store = await d.open('records'); });

  it('final transitions happen only under the recorder\'s own claim; machine state and events are written either way', async () => {
    const until = Date.now() + 60_000;
    const ours = await seed(store, 'expired', { claim: { by: ME, until } });
    const theirs = await seed(store, 'expired', { claim: { by: OTHER, until } });
    const unclaimed = await seed(store, 'releasing');
    for (const l of [ours, theirs]) {
      await store.addExecJob({ id: `job-${l.id}`, lease_id: l.id, started_by: { pid: 1, host: 'h', run: 'r' } });
      await store.setLeaseScreen(l.id, '{"scale":0.5}');
    }
    const finished = await store.recordTeardowns(ME, [ours, theirs, unclaimed].map((l) => ({
      lease_id: l.id, outcome: 'destroyed', machine: 'destroyed' as const,
      final: { from: l.status, to: l.status === 'expired' ? 'reaped' as const : 'released' as const },
      events: [{ kind: 'machine.destroyed' as const, data: { external_id: `m-${l.id}` } }],
    })));
    assert.deepEqual(finished, [{ lease_id: ours.id, from: 'expired', to: 'reaped' }]);
    const done = await store.getLease(ours.id);
    assert.equal(done?.status, 'reaped');
    assert.equal(done?.claimed_by, null);
    assert.equal(done?.claim_expires_at, null);
    const kept = await store.getLease(theirs.id);
    assert.equal(kept?.status, 'expired', 'another holder\'s lease is not finished by us');
    assert.equal(kept?.claimed_by, OTHER);
    assert.equal((await store.getLease(unclaimed.id))?.status, 'releasing', 'no claim, no final transition');
    for (const l of [ours, theirs, unclaimed]) {
      assert.equal((await store.getMachine(l.id))?.state, 'destroyed');
      assert.equal((await store.listEvents({ lease_id: l.id, kind: 'machine.destroyed' })).length, 1);
    }
    const reaped = await store.listEvents({ lease_id: ours.id, kind: 'lease.reaped' });
    assert.equal(reaped.length, 1);
    assert.equal(reaped[0]!.actor, ME);
    assert.deepEqual(JSON.parse(reaped[0]!.data), { from: 'expired', machine: 'destroyed' });
    assert.equal((await store.listEvents({ lease_id: theirs.id, kind: 'lease.reaped' })).length, 0);
    assert.equal(await store.execJob(ours.id, `job-${ours.id}`), undefined, 'the ended lease\'s detached-command rows went with it');
    assert.ok(await store.execJob(theirs.id, `job-${theirs.id}`), 'a lease not ended keeps its jobs');
    assert.equal((await store.getLeaseWithScreen(ours.id))?.screen, undefined, 'and its screen mapping');
    assert.equal((await store.getLeaseWithScreen(theirs.id))?.screen, '{"scale":0.5}');
  });

  it('a mismatch finishes with IDENTITY_MISMATCH; without a final transition the status stays and only our claim is released (unless kept)', async () => {
    const until = Date.now() + 60_000;
    const mismatch = await seed(store, 'releasing', { claim: { by: ME, until } });
    const failed = await seed(store, 'failed', { claim: { by: ME, until } });
    const keep = await seed(store, 'failed', { claim: { by: ME, until } });
    const foreign = await seed(store, 'released', { claim: { by: OTHER, until } });
    await store.recordTeardowns(ME, [
      { lease_id: mismatch.id, outcome: 'mismatch', machine: 'mismatch', final: { from: 'releasing', to: 'released' }, events: [{ kind: 'machine.identity_mismatch' }] },
      { lease_id: failed.id, outcome: 'already_gone', machine: 'destroyed' },
      { lease_id: keep.id, keepClaim: true, events: [{ kind: 'reaper.teardown_error', data: { message: 'timeout' } }] },
      { lease_id: foreign.id, outcome: 'nothing' },
    ]);
    const m = await store.getLease(mismatch.id);
    assert.equal(m?.status, 'released');
    assert.equal(m?.error_code, 'IDENTITY_MISMATCH');
    assert.equal((await store.getMachine(mismatch.id))?.state, 'mismatch');
    const f = await store.getLease(failed.id);
    assert.equal(f?.status, 'failed', 'tearing down a failed lease\'s machine keeps it failed');
    assert.equal(f?.claimed_by, null);
    assert.equal((await store.getMachine(failed.id))?.state, 'destroyed');
    assert.equal((await store.getLease(keep.id))?.claimed_by, ME, 'keepClaim leaves the claim to lapse');
    assert.equal((await store.getMachine(keep.id))?.state, 'running');
    assert.equal((await store.getLease(foreign.id))?.claimed_by, OTHER, 'another holder\'s claim is never released by us');
  });

  it('inserts the machine row found through the provider when the store had none', async () => {
    const l = await seed(store, 'failed', { machine: false, claim: { by: ME, until: Date.now() + 60_000 } });
    await store.recordTeardowns(ME, [{ lease_id: l.id, outcome: 'destroyed', machine: 'destroyed', found: { identity: l.identity, provider: 'fake', ref: { identity: l.identity, external_id: 'found-1', node: 'n1', details: { a: 1 } } } }]);
    const row = await store.getMachine(l.id);
    assert.deepEqual({ external_id: row?.external_id, node: row?.node, state: row?.state, details: row?.details }, { external_id: 'found-1', node: 'n1', state: 'destroyed', details: '{"a":1}' });
  });

  it('refuses a bad record before writing anything', async () => {
    const until = Date.now() + 60_000;
    const good = await seed(store, 'expired', { claim: { by: ME, until } });
    const bad = await seed(store, 'ready', { claim: { by: ME, until } });
    const goodRecord = { lease_id: good.id, outcome: 'destroyed', machine: 'destroyed' as const, final: { from: 'expired' as const, to: 'reaped' as const } };
    await assert.rejects(store.recordTeardowns(ME, [goodRecord, { lease_id: bad.id, final: { from: 'ready', to: 'reaped' } }]), /ready → reaped is not a lease transition/);
    await assert.rejects(store.recordTeardowns(ME, [goodRecord, { lease_id: bad.id, final: { from: 'ready', to: 'releasing' } }]), /not final/);
    await assert.rejects(store.recordTeardowns(ME, [goodRecord, { lease_id: bad.id, events: [{ kind: 'machine.vanished' as never }] }]), /unknown event kind/);
    assert.equal((await store.getLease(good.id))?.status, 'expired');
    assert.equal((await store.getMachine(good.id))?.state, 'running');
    assert.equal((await store.listEvents({ lease_id: good.id })).length, 0);
  });
});

describe('store: machineRef', () => {
  const row = { identity: 'vmhub-x-1', external_id: 'c1', node: null, details: '{}' };

  it('a row without external_id has no handle', () => {
    assert.equal(machineRef({ ...row, external_id: null }), undefined);
    assert.equal(machineRef({ ...row, external_id: '' }), undefined);
  });

  it('carries node and non-empty details; a corrupt details column is ignored', () => {
    assert.deepEqual(machineRef(row), { identity: 'vmhub-x-1', external_id: 'c1' });
    assert.deepEqual(machineRef({ ...row, node: 'pve1', details: '{"port":5900}' }), { identity: 'vmhub-x-1', external_id: 'c1', node: 'pve1', details: { port: 5900 } });
    assert.deepEqual(machineRef({ ...row, details: '{not json' }), { identity: 'vmhub-x-1', external_id: 'c1' });
  });
});
