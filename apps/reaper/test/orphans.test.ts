import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { ORPHAN_REQUEST_PREFIX } from '../src/orphans.ts';
import { destroyCalls, machineExists, makeWorld, runOnce, seedLease, summaryOf, useWorld, writeMachine } from './helpers.ts';
import { REAPER_PRINCIPAL } from '@vmhub/store';

describe('reaper: orphans', () => {
  const w = useWorld({ orphanGraceSeconds: 60 });

  it('destroys orphans older than the grace period and not before; decoys never', async () => {
    const now = Date.now();
    const young = `${w.prefix}${randomUUID()}`;
    const old = `${w.prefix}${randomUUID()}`;
    writeMachine(w, { identity: young, external_id: 'young', created_at: now - 5_000 });
    writeMachine(w, { identity: old, external_id: 'old', created_at: now - 120_000 });
    // A finished lease whose machine came back (a create that completed after expiry).
    const finished = await seedLease(w, { status: 'reaped', row: false, machineCreatedAgo: 120_000 });
    // A live lease's machine, old: owned, not an orphan.
    const live = await seedLease(w, { status: 'ready', machineCreatedAgo: 600_000 });
    // Decoys: another instance's prefix (the instance name extends ours), no identity at all,
    // and a machine whose name holds a real lease's uuid but carries no identity.
    writeMachine(w, { identity: `vmhub-${w.instance}x-${randomUUID()}`, external_id: 'other-instance', created_at: now - 600_000 });
    writeMachine(w, { identity: '', external_id: 'unrelated', created_at: now - 600_000 });
    writeMachine(w, { identity: 'no-label', external_id: `decoy-${live.id}`, created_at: now - 600_000 });

    const r = await runOnce(w);
    assert.equal(r.code, 0, r.stderr);
    const s = summaryOf(r.stdout);
    assert.equal(s.orphans, 2, r.stdout);
    assert.equal(s.orphan_grace, 1, 'the young one is skipped with its reason');
    assert.equal(machineExists(w, 'old'), false, 'old orphan destroyed');
    assert.equal(machineExists(w, `m-${finished.id}`), false, 'machine of a finished lease destroyed');
    assert.equal(machineExists(w, 'young'), true, 'young orphan kept (grace)');
    assert.equal(machineExists(w, `m-${live.id}`), true, 'live lease machine kept');
    for (const decoy of ['other-instance', 'unrelated', `decoy-${live.id}`]) assert.equal(machineExists(w, decoy), true, `decoy ${decoy} kept`);
    const calls = destroyCalls(w);
    for (const decoy of ['other-instance', 'unrelated', `decoy-${live.id}`, 'young', `m-${live.id}`]) assert.equal(calls.has(decoy), false, `no destroy call for ${decoy}`);

    // The unknown orphan is now a tombstone: an old request id can never mint it again.
    const tomb = await w.store.getLeaseByRequest(`${ORPHAN_REQUEST_PREFIX}${old}`, REAPER_PRINCIPAL);
    assert.equal(tomb?.status, 'failed');
    assert.equal(tomb?.error_code, 'ORPHAN');
    assert.equal((await w.store.getMachine(tomb!.id))?.state, 'destroyed');
    assert.deepEqual((await w.store.listEvents({ lease_id: tomb!.id })).map((e) => e.kind), ['orphan.found', 'orphan.destroyed']);
  });

  it('an orphan whose provider gives no creation time waits the grace from when it was first seen', async () => {
    const w2 = makeWorld({ orphanGraceSeconds: 2 });
    try {
      const identity = `${w2.prefix}${randomUUID()}`;
      writeMachine(w2, { identity, external_id: 'undated' });
      const first = await runOnce(w2);
      assert.equal(summaryOf(first.stdout).orphan_grace, 1, first.stdout);
      assert.equal(machineExists(w2, 'undated'), true);
      await new Promise((r) => setTimeout(r, 2200));
      const second = await runOnce(w2);
      assert.equal(summaryOf(second.stdout).orphans, 1, second.stdout);
      assert.equal(machineExists(w2, 'undated'), false);
    } finally {
      await w2.cleanup();
    }
  });
});
