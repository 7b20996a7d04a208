import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { until } from '@vmhub/test-kit';
import { destroyCalls, exited, machineFiles, runOnce, seedLeases, spawnReaper, summaryOf, useWorld } from './helpers.ts';

describe('reaper: SIGKILL mid-pass', () => {
  const w = useWorld({ destroyDelayMs: 800 });

  it('a reaper killed mid-teardown leaves work its successor finishes once the claim lapses', async () => {
    const leases = await seedLeases(w, 6, { status: 'ready', expiresIn: -1000 });
    const log = join(w.fakeDir, 'calls.log');
    const victim = spawnReaper(w, ['--once', '--claim-seconds', '2', '--concurrency', '2']);
    await until(() => existsSync(log) && readFileSync(log, 'utf8').includes('start '), 'a destroy in flight', 15_000);
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 400)));
    victim.kill('SIGKILL');
    await exited(victim);
    const afterKill = await Promise.all(leases.map((l) => w.store.getLease(l.id)));
    assert.ok(afterKill.some((l) => l?.status === 'expired'), 'the kill left unfinished work');

    // Straight after: the dead reaper's claims are still valid, so its leases are skipped, not fought over.
    const early = await runOnce(w, ['--claim-seconds', '2']);
    assert.equal(early.code, 0, early.stderr);
    // Once they lapse, the next pass finishes everything.
    await new Promise((r) => setTimeout(r, 2200));
    const late = await runOnce(w, ['--claim-seconds', '2']);
    assert.equal(late.code, 0, late.stderr);
    for (const l of leases) assert.equal((await w.store.getLease(l.id))?.status, 'reaped', `lease ${l.id}`);
    assert.deepEqual(machineFiles(w), [], 'no machine left');
    const calls = destroyCalls(w);
    for (const l of leases) {
      const outcomes = calls.get(`m-${l.id}`) ?? [];
      assert.equal(outcomes.filter((o) => o === 'destroyed').length, 1, `m-${l.id} destroyed exactly once (${outcomes.join(',')})`);
    }
    assert.ok(summaryOf(early.stdout).claimed_elsewhere >= 1 || summaryOf(early.stdout).reaped >= 1, early.stdout);
  });
});
