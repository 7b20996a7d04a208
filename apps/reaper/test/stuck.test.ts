import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { machineExists, runOnce, seedLease, summaryOf, useWorld } from './helpers.ts';

describe('reaper: stuck leases', () => {
  const w = useWorld({ stuckGraceSeconds: 1 });

  it('fails a lease stuck in provisioning past its deadline and destroys its machine', async () => {
    const stuck = await seedLease(w, { status: 'provisioning', deadlineIn: -1000 });
    const starting = await seedLease(w, { status: 'starting', deadlineIn: -1000, row: false }); // server died before recording the machine
    const fine = await seedLease(w, { status: 'provisioning', deadlineIn: 60_000 });
    const r = await runOnce(w);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summaryOf(r.stdout).failed, 2);
    for (const l of [stuck, starting]) {
      const row = await w.store.getLease(l.id);
      assert.equal(row?.status, 'failed');
      assert.equal(row?.error_code, 'BOOT_TIMEOUT');
      assert.equal(machineExists(w, `m-${l.id}`), false, 'machine destroyed (found through the provider listing when the store had no handle)');
      assert.equal((await w.store.getMachine(l.id))?.state, 'destroyed');
    }
    assert.equal((await w.store.getLease(fine.id))?.status, 'provisioning');
    assert.equal(machineExists(w, `m-${fine.id}`), true);
  });

  it('finishes a release whose server died (claim lapsed past the stuck grace), not one still held', async () => {
    const dead = await seedLease(w, { status: 'releasing', claim: { by: 'server:dead', untilIn: -5000 } });
    const held = await seedLease(w, { status: 'releasing', claim: { by: 'server:alive', untilIn: 60_000 } });
    const r = await runOnce(w);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summaryOf(r.stdout).released, 1);
    assert.equal((await w.store.getLease(dead.id))?.status, 'released');
    assert.equal(machineExists(w, `m-${dead.id}`), false);
    assert.equal((await w.store.getLease(held.id))?.status, 'releasing');
    assert.equal(machineExists(w, `m-${held.id}`), true, 'a release in progress is left to its server');
  });

  it('destroys the machine of a finished lease the store still shows running (server died after the transition)', async () => {
    const l = await seedLease(w, { status: 'released' });
    await w.store.updateLease(l.id, { updated_at: Date.now() - 10_000 });
    const r = await runOnce(w);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(machineExists(w, `m-${l.id}`), false);
    assert.equal((await w.store.getMachine(l.id))?.state, 'destroyed');
    assert.equal((await w.store.getLease(l.id))?.status, 'released', 'tombstone keeps its status');
  });

  it('leaves an identity mismatch alone, records it, and never retries it', async () => {
    const l = await seedLease(w, { status: 'ready', expiresIn: -1000, machine: false });
    // The stored handle now points at someone else's machine.
    const { writeMachine } = await import('./helpers.ts');
    writeMachine(w, { identity: 'somebody-else', external_id: `m-${l.id}` });
    const r = await runOnce(w);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /identity_mismatch=1/);
    assert.equal(machineExists(w, `m-${l.id}`), true, 'not ours: not destroyed');
    assert.equal((await w.store.getMachine(l.id))?.state, 'mismatch');
    assert.equal((await w.store.listEvents({ lease_id: l.id, kind: 'machine.identity_mismatch' })).length, 1);
    assert.equal((await w.store.getLease(l.id))?.status, 'reaped', 'nothing of ours is left for this lease');
    assert.equal((await w.store.getLease(l.id))?.error_code, 'IDENTITY_MISMATCH');
    const again = await runOnce(w);
    assert.equal(summaryOf(again.stdout).skipped, 0);
    assert.equal((await w.store.listEvents({ lease_id: l.id, kind: 'machine.identity_mismatch' })).length, 1, 'recorded once');
  });
});
