/**
 * The same guarantees on the conformance kit's fake provider (@vmhub/conformance/fake), loaded
 * by the built bin the way an operator would (`plugins: ["@vmhub/conformance/fake"]`): its
 * ledger records every create/destroy from every process.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { fakeProvider, fakeTemplate, readFakeLedger } from '@vmhub/conformance/fake';
import { runOnce, summaryOf, useFakePackageWorld } from './helpers.ts';

describe('reaper: on @vmhub/conformance/fake', () => {
  const { prefix, fakeDir, world, store } = useFakePackageWorld('cfake');

  it('expired leases and orphans are destroyed exactly once by two reapers at once; live ones are kept', async () => {
    const provider = fakeProvider.create({ dir: fakeDir }, { identityPrefix: prefix, log: () => undefined });
    const now = Date.now();
    const expired: string[] = [];
    const live: string[] = [];
    for (let i = 0; i < 24; i++) {
      const id = randomUUID();
      const identity = `${prefix}${id}`;
      const isExpired = i % 3 !== 0;
      await store.createLease({ id, principal: 'tester', request_id: `r-${id}`, template: 'fake-desktop', provider: 'fake', adapter: 'fake', owner: 'o', status: 'ready', identity, created_at: now - 5000, expires_at: isExpired ? now - 1000 : now + 3_600_000, max_expires_at: now + 86_400_000, deadline_at: null });
      const m = await provider.create({ lease_id: id, identity, template: fakeTemplate(), signal: AbortSignal.timeout(10_000) });
      await store.putMachine({ lease_id: id, identity, provider: 'fake', external_id: m.external_id, node: null, state: 'running', details: '{}' });
      (isExpired ? expired : live).push(identity);
    }
    const orphan = `${prefix}${randomUUID()}`;
    await provider.create({ lease_id: 'x', identity: orphan, template: fakeTemplate(), signal: AbortSignal.timeout(10_000) });

    const [a, b] = await Promise.all([runOnce(world), runOnce(world)]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(summaryOf(a.stdout).destroyed + summaryOf(b.stdout).destroyed, expired.length + 1);

    const destroys = (await readFakeLedger(fakeDir)).filter((e) => e.op === 'destroy');
    const byIdentity = new Map<string, number>();
    for (const e of destroys) byIdentity.set(e.identity, (byIdentity.get(e.identity) ?? 0) + 1);
    for (const id of [...expired, orphan]) assert.equal(byIdentity.get(id), 1, `${id} destroyed exactly once`);
    for (const id of live) assert.equal(byIdentity.has(id), false, `live ${id} kept`);
    const remaining = (await provider.list()).map((m) => m.identity).sort();
    assert.deepEqual(remaining, [...live].sort());
  });
});
