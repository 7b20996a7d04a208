/**
 * `--coordination leader` on PostgreSQL: of two looping reapers only the holder of the store's
 * leadership (a session advisory lock) runs passes; the other stands by. SIGKILL the leader
 * mid-teardown: its session ends, the other takes the leadership and, once the dead leader's
 * claims lapse, finishes every lease — each reaped once, each machine destroyed once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPostgres, type PostgresServer } from '@vmhub/postgres-testing';
import { until } from '@vmhub/test-kit';
import { exited, machineFiles, seedLease, spawnReaper, type World } from './helpers.ts';
import { calls, logRecords, postgresWorld } from './postgres-world.ts';

const LEASES = 24;

describe('reaper: --coordination leader on PostgreSQL', () => {
  let pg: PostgresServer;
  let w: World;
  before(async () => {
    pg = await startPostgres();
    w = await postgresWorld(await pg.createDatabase('reaper_leader'), { destroyDelayMs: 500, intervalSeconds: 1 });
  });
  after(async () => {
    await w?.cleanup();
    pg?.destroy();
  });

  it('only the leader tears down; when it is killed the other takes over and finishes exactly once', async () => {
    const leases = [];
    for (let i = 0; i < LEASES; i++) leases.push(await seedLease(w, { status: 'ready', expiresIn: -1000 }));
    const args = ['--interval', '1', '--claim-seconds', '3', '--concurrency', '2', '--coordination', 'leader', '--json'];
    const a = spawnReaper(w, args);
    const b = spawnReaper(w, args);
    try {
      await until(() => calls(w).some((c) => c.kind === 'destroy' && c.outcome === 'destroyed'), 'a first destroy', 60_000);
      const leaderPid = calls(w).find((c) => c.kind === 'destroy')!.pid;
      const [leader, other] = leaderPid === a.pid ? [a, b] : [b, a];
      await until(() => logRecords(other.err()).some((r) => r.msg === 'another reaper leads: standing by'), 'the other reaper standing by', 30_000);
      leader.kill('SIGKILL');
      await exited(leader, 30_000);
      const beforeKill = calls(w);
      assert.ok(beforeKill.every((c) => c.pid === leader.pid), 'while the leader lived, nobody else destroyed anything');
      assert.ok((await w.store.countLeases({ status: ['reaped'] })) < LEASES, 'the leader died with work left');

      await until(async () => (await w.store.countLeases({ status: ['reaped'] })) === LEASES, 'every lease reaped', 120_000, 250);
      assert.ok(logRecords(other.err()).some((r) => r.msg === 'leading: this reaper runs the passes'), 'the other reaper took the leadership');
      const reaped = await w.store.listEvents({ kind: 'lease.reaped', limit: 10_000 });
      for (const l of leases) assert.equal(reaped.filter((e) => e.lease_id === l.id).length, 1, `lease ${l.id}: one lease.reaped event`);
      assert.deepEqual(machineFiles(w), [], 'no machine left');
      const log = calls(w);
      for (const l of leases) {
        const outcomes = log.filter((c) => c.kind === 'destroy' && c.ext === `m-${l.id}`).map((c) => c.outcome);
        assert.equal(outcomes.filter((o) => o === 'destroyed').length, 1, `m-${l.id}: one effective destroy (${outcomes.join(',')})`);
      }
      assert.ok(log.some((c) => c.kind === 'destroy' && c.pid === other.pid), 'the new leader tore down the rest');
      other.kill('SIGTERM');
      assert.equal(await exited(other, 60_000), 0, other.err().slice(-2000));
    } finally {
      for (const c of [a, b]) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    }
  });
});
