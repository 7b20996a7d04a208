/**
 * Snapshots on @vmhub/conformance/fake, loaded by the built bin: two reapers at once delete an
 * expired snapshot and an orphan (this instance's snapshot identity, no row) exactly once, by
 * identity; a live snapshot is kept; a decoy — a row that looks like an expired snapshot of ours
 * but whose provider snapshot carries another identity — is left alone (identity_mismatch).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { snapshotIdentity, type MachineRef } from '@vmhub/core';
import { fakeProvider, fakeTemplate, readFakeLedger } from '@vmhub/conformance/fake';
import type { SnapshotRow } from '@vmhub/store';
import { runOnce, summaryOf, useFakePackageWorld } from './helpers.ts';

describe('reaper: snapshots on @vmhub/conformance/fake', () => {
  const { instance, prefix, fakeDir, world, store } = useFakePackageWorld('snap');
  const ctx = (p: string) => ({ identityPrefix: p, log: () => undefined });
  const ours = fakeProvider.create({ dir: fakeDir }, ctx(prefix));
  const theirs = fakeProvider.create({ dir: fakeDir }, ctx('vmhub-other-'));
  const signal = () => AbortSignal.timeout(10_000);

  async function machine(): Promise<{ lease: string; ref: MachineRef }> {
    const lease = randomUUID();
    const now = Date.now();
    const identity = `${prefix}${lease}`;
    await store.createLease({ id: lease, principal: 'tester', request_id: `r-${lease}`, template: 'fake-desktop', provider: 'fake', adapter: 'fake', owner: 'o', status: 'released', identity, created_at: now - 5000, expires_at: now - 1000, max_expires_at: now + 86_400_000, deadline_at: null });
    return { lease, ref: await ours.create({ lease_id: lease, identity, template: fakeTemplate(), signal: signal() }) };
  }

  /** A snapshot of `m` carrying `carried`, recorded under our identity for snapshot `id`. */
  async function snapshot(m: { lease: string; ref: MachineRef }, expiresIn: number, carried?: string): Promise<SnapshotRow> {
    const id = randomUUID();
    const identity = snapshotIdentity(instance, id);
    const made = await (carried ? theirs : ours).snapshot!(m.ref, { identity: carried ?? identity, template: fakeTemplate(), signal: signal() });
    const now = Date.now();
    return store.addSnapshot({ id, principal: 'tester', lease_id: m.lease, template: 'fake-desktop', provider: 'fake', identity, external_id: made.external_id, details: made.details ?? {}, memory: made.memory, size_bytes: made.size_bytes, created_at: now - 5000, expires_at: now + expiresIn }, 'test');
  }

  it('expired and orphaned snapshots are deleted once by two reapers at once; a live one and a decoy stay', async () => {
    const m = await machine();
    const expired = await snapshot(m, -1000);
    const live = await snapshot(m, 3_600_000);
    const decoyIdentity = `vmhub-other-snap-${randomUUID()}`;
    const decoy = await snapshot(m, -1000, decoyIdentity);
    const orphan = await ours.snapshot!(m.ref, { identity: snapshotIdentity(instance, randomUUID()), template: fakeTemplate(), signal: signal() });

    const [a, b] = await Promise.all([runOnce(world), runOnce(world)]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(summaryOf(a.stdout).snapshots + summaryOf(b.stdout).snapshots, 2, `${a.stdout}\n${b.stdout}`);

    const deletes = (await readFakeLedger(fakeDir)).filter((e) => e.op === 'delete_snapshot').map((e) => e.identity);
    assert.deepEqual(deletes.sort(), [expired.identity, orphan.identity].sort(), 'each deleted exactly once, by its identity');
    assert.deepEqual((await ours.listSnapshots!()).map((s) => s.identity), [live.identity], 'the live one is kept');
    assert.deepEqual((await theirs.listSnapshots!()).filter((s) => s.identity.startsWith('vmhub-other-')).map((s) => s.identity), [decoyIdentity], 'the decoy is untouched');

    const rows = await Promise.all([expired, live, decoy].map(async (r) => (await store.getSnapshot(r.id))!));
    assert.deepEqual(rows.map((r) => [r.state, r.outcome]), [['deleted', 'destroyed'], ['ready', undefined], ['deleted', 'identity_mismatch']]);
    const kinds = (await store.listEvents({ lease_id: m.lease })).map((e) => e.kind);
    assert.ok(kinds.includes('snapshot.deleted') && kinds.includes('snapshot.identity_mismatch'), kinds.join(', '));
    assert.equal((await store.listEvents({ kind: 'snapshot.orphan_deleted' })).length, 1);
  });
});
