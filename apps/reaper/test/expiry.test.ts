import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { until } from '@vmhub/test-kit';
import { exited, machineExists, seedLease, spawnReaper, useWorld } from './helpers.ts';

describe('reaper: expiry (loop mode)', () => {
  const w = useWorld();

  it('honours expiry within one interval + 5 s, TTL and max lifetime alike', async () => {
    const interval = 2;
    const reaper = spawnReaper(w, ['--interval', String(interval)]);
    try {
      await until(() => reaper.out().includes('reaper pass:'), 'the first pass', 15_000);
      const ttl = await seedLease(w, { status: 'ready', expiresIn: 1500 });
      const cap = await seedLease(w, { status: 'ready', expiresIn: 3_600_000, maxExpiresIn: 1500 });
      const live = await seedLease(w, { status: 'ready', expiresIn: 3_600_000 });
      const expiresAt = Math.max(ttl.expires_at, cap.max_expires_at);
      await until(async () => (await w.store.getLease(ttl.id))?.status === 'reaped' && (await w.store.getLease(cap.id))?.status === 'reaped', 'both leases reaped', interval * 1000 + 5000 + 1500 + 2000);
      const lag = Date.now() - expiresAt;
      assert.ok(lag <= interval * 1000 + 5000, `reaped ${lag} ms after expiry; bound is interval + 5 s`);
      assert.equal(machineExists(w, `m-${ttl.id}`), false, 'TTL-expired machine destroyed');
      assert.equal(machineExists(w, `m-${cap.id}`), false, 'max-lifetime machine destroyed');
      assert.equal((await w.store.getMachine(ttl.id))?.state, 'destroyed');
      assert.equal((await w.store.getLease(live.id))?.status, 'ready', 'a live lease is untouched');
      assert.equal(machineExists(w, `m-${live.id}`), true);
      const kinds = (await w.store.listEvents({ lease_id: ttl.id })).map((e) => e.kind);
      assert.deepEqual(kinds, ['lease.expired', 'machine.destroyed', 'lease.reaped']);
      assert.match((await w.store.listEvents({ lease_id: cap.id, kind: 'lease.expired' }))[0].data, /max_lifetime/);
    } finally {
      reaper.kill('SIGTERM');
      assert.equal(await exited(reaper, 15_000), 0, 'SIGTERM ends the loop cleanly');
    }
  });
});
