import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { destroyCalls, machineFiles, runOnce, seedLease, seedLeases, useWorld, writeMachine } from './helpers.ts';

describe('reaper: two reapers at once', () => {
  const w = useWorld({ destroyDelayMs: 20 });

  it('each machine is destroyed exactly once and every lease ends reaped', async () => {
    const expired = await seedLeases(w, 30, { status: 'ready', expiresIn: -1000 });
    const stuck = await seedLeases(w, 5, { status: 'provisioning', deadlineIn: -1000 });
    const orphans = [];
    for (let i = 0; i < 10; i++) {
      const id = `orphan-${i}`;
      writeMachine(w, { identity: `${w.prefix}${randomUUID()}`, external_id: id, created_at: Date.now() - 60_000 });
      orphans.push(id);
    }
    const live = await seedLease(w, { status: 'ready' });

    const [a, b] = await Promise.all([runOnce(w), runOnce(w)]);
    assert.ok(a.code === 0 && b.code === 0, `${a.stdout}${a.stderr}\n${b.stdout}${b.stderr}`);
    // A third pass after both: nothing left to do.
    const c = await runOnce(w);
    assert.match(c.stdout, /expired=0 reaped=0 failed=0 released=0 orphans=0 destroyed=0/);

    const calls = destroyCalls(w);
    for (const l of [...expired, ...stuck]) {
      assert.deepEqual(calls.get(`m-${l.id}`), ['destroyed'], `lease ${l.id}: exactly one destroy call`);
    }
    for (const o of orphans) assert.deepEqual(calls.get(o), ['destroyed'], `orphan ${o}: exactly one destroy call`);
    for (const l of expired) assert.equal((await w.store.getLease(l.id))?.status, 'reaped');
    for (const l of stuck) assert.equal((await w.store.getLease(l.id))?.status, 'failed');
    assert.deepEqual(machineFiles(w), [`m-${live.id}.json`], 'only the live lease machine remains');
    const work = (out: string) => Number(/destroyed=(\d+)/.exec(out)?.[1] ?? 0);
    assert.equal(work(a.stdout) + work(b.stdout), 45, 'the two reapers split the work');
  });
});
