/**
 * A looping reaper whose PostgreSQL goes down (pg_ctl stop -m fast) and comes back: it does not
 * exit, warns each interval that the store is unavailable, and once PostgreSQL is back it reaps
 * the leases that expired during the outage (their machines destroyed once, status reaped).
 * Also: the password in VMHUB_DB never reaches the logs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPostgres, type PostgresServer } from '@vmhub/postgres-testing';
import { until } from '@vmhub/test-kit';
import { destroyCalls, exited, machineFiles, seedLease, seedLeases, spawnReaper, type World } from './helpers.ts';
import { logRecords, postgresWorld, sleep } from './postgres-world.ts';

describe('reaper: PostgreSQL down and back', () => {
  let pg: PostgresServer;
  let w: World;
  let url: string;
  before(async () => {
    pg = await startPostgres();
    url = await pg.createDatabase('reaper_outage');
    w = await postgresWorld(url, { intervalSeconds: 1 });
  });
  after(async () => {
    await w?.cleanup();
    pg?.destroy();
  });

  it('keeps running while the store is unavailable and reaps what expired meanwhile once it returns', async () => {
    // Short retry windows so an outage is reported within a pass or two.
    const reaper = spawnReaper(w, ['--interval', '1', '--json'], { VMHUB_DB: `${url}?retry_ms=1000&connect_timeout_ms=1000` });
    try {
      const warnings = () => logRecords(reaper.err()).filter((r) => r.level === 'warn' && r.msg === 'the store is unavailable: pass skipped, retried next interval');
      const before = await seedLease(w, { status: 'ready', expiresIn: -1000 });
      await until(async () => (await w.store.getLease(before.id))?.status === 'reaped', 'the reaper working on PostgreSQL', 60_000);

      const during = await seedLeases(w, 5, { status: 'ready', expiresIn: 6_000 });
      const stoppedAt = Date.now();
      pg.stop();
      // Past every expiry, and at least two passes skipped with a warning.
      await until(() => Date.now() > Math.max(...during.map((l) => l.expires_at)) + 2_000 && warnings().length >= 2, 'two unavailable warnings and the leases past expiry', 90_000);
      assert.equal(reaper.exitCode, null, `the reaper is still running: ${reaper.err().slice(-2000)}`);
      assert.equal(reaper.signalCode, null);
      await sleep(1000);
      assert.equal(reaper.exitCode, null, 'still running a second later');
      const restartedAt = Date.now();
      pg.start();

      await until(async () => {
        for (const l of during) if ((await w.store.getLease(l.id))?.status !== 'reaped') return false;
        return true;
      }, 'the leases that expired during the outage reaped', 90_000, 250);
      for (const l of during) assert.ok(l.expires_at > stoppedAt && l.expires_at < restartedAt, 'the lease expired while PostgreSQL was down');
      assert.deepEqual(machineFiles(w), [], 'every machine destroyed');
      const destroys = destroyCalls(w);
      for (const l of [before, ...during]) assert.deepEqual(destroys.get(`m-${l.id}`), ['destroyed'], `m-${l.id}: one destroy`);
      const records = logRecords(reaper.err());
      assert.ok(records.some((r) => r.msg === 'the store answers again: passes resume'), 'recovery was logged');
      assert.ok(warnings().every((r) => typeof r.db === 'string' && (r.db as string).includes(':***@')), 'the warning names the store with its password masked');
      const password = decodeURIComponent(new URL(url).password);
      assert.ok(password.length > 0 && !reaper.err().includes(password) && !reaper.out().includes(password), 'the password never reaches the logs');
      const ready = records.find((r) => r.msg === 'reaper ready');
      assert.equal(ready?.store, 'postgres');
      assert.match(String(ready?.db), /^postgres:\/\/vmhub:\*\*\*@127\.0\.0\.1:/);
    } finally {
      reaper.kill('SIGTERM');
      await exited(reaper, 60_000).catch(() => reaper.kill('SIGKILL'));
    }
    assert.equal(reaper.exitCode, 0, reaper.err().slice(-2000));
  });
});
