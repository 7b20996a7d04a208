// job-ledger.ts on a real SQLite store: this process's jobs beat while they run and stop beating
// when they end; a job of another process is running while that process is alive (a pid on this
// host) or beats (another host), and JOB_LOST once it is not; an ended job's result and error
// come back as they were, whichever process asks.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type ExecResult } from '@vmhub/core';
import { DetachedJobs } from '@vmhub/core/router';
import { Store } from '@vmhub/store';
import { jobLedger } from './job-ledger.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-job-ledger-'));
const LEASE = '00000000-0000-4000-8000-00000000000a';
const result = (out: string): ExecResult => ({ exit_code: 0, stdout: Buffer.from(out), stderr: Buffer.from('warn\n'), timed_out: false, truncated: false });

describe('job ledger (store-backed)', () => {
  let store: Store;
  before(async () => {
    store = new Store({ path: join(dir, 'vmhub.db') });
    const now = Date.now();
    await store.createLease({ id: LEASE, principal: 'p', request_id: 'r', template: 't', provider: 'fake', adapter: 'fake', owner: null, status: 'ready', identity: `vmhub-test-${LEASE}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a running job beats every beatMs; once ended it stops, and its result reads back whole', async () => {
    const jobs = new DetachedJobs(jobLedger(store, LEASE, { beatMs: 30 }));
    let finish!: (r: ExecResult) => void;
    const id = await jobs.start(() => new Promise((r) => { finish = r; }));
    const first = (await store.execJob(LEASE, id))!;
    await sleep(150);
    const later = (await store.execJob(LEASE, id))!;
    assert.ok(later.seen_at > first.seen_at, `seen_at moved while it ran (${first.seen_at} → ${later.seen_at})`);
    finish(result('built\n'));
    await sleep(20);
    const ended = (await store.execJob(LEASE, id))!;
    await sleep(100);
    assert.equal((await store.execJob(LEASE, id))!.seen_at, ended.seen_at, 'no beat after the end');
    // Another process reads the outcome from the store.
    const read = await new DetachedJobs(jobLedger(store, LEASE)).get(id);
    assert.equal(read.running, false);
    assert.deepEqual({ ...read.result, stdout: read.result?.stdout.toString(), stderr: read.result?.stderr.toString() }, { exit_code: 0, stdout: 'built\n', stderr: 'warn\n', timed_out: false, truncated: false });
    jobs.dispose();
  });

  it('an error outcome reads back as the same typed error', async () => {
    const jobs = new DetachedJobs(jobLedger(store, LEASE));
    const id = await jobs.start(async () => { throw new VmhubError('TIMEOUT', 'ran past 5 s', { details: { seconds: 5 } }); });
    await sleep(20);
    const err = (await new DetachedJobs(jobLedger(store, LEASE)).get(id)).error;
    assert.ok(VmhubError.is(err));
    assert.deepEqual([err.code, err.message, err.details], ['TIMEOUT', 'ran past 5 s', { seconds: 5 }]);
  });

  it('another process\'s job: running while its pid lives (this host) or it beats (another host); JOB_LOST after', async () => {
    const reader = new DetachedJobs(jobLedger(store, LEASE, { staleMs: 200 }));
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    await store.addExecJob({ id: 'job-here-alive', lease_id: LEASE, started_by: { pid: process.ppid, host: hostname(), run: 'another-run' } });
    await store.addExecJob({ id: 'job-here-dead', lease_id: LEASE, started_by: { pid: dead, host: hostname(), run: 'another-run' } });
    await store.addExecJob({ id: 'job-elsewhere', lease_id: LEASE, started_by: { pid: 4242, host: 'hub-2.example', run: 'run-of-hub-2' } });
    assert.equal((await reader.get('job-here-alive')).running, true);
    await assert.rejects(reader.get('job-here-dead'), (e: unknown) => VmhubError.is(e) && e.code === 'JOB_LOST' && e.details?.server_running === false);
    assert.equal((await reader.get('job-elsewhere')).running, true, 'its heartbeat is fresh');
    await sleep(300);
    await assert.rejects(reader.get('job-elsewhere'), (e: unknown) => VmhubError.is(e) && e.code === 'JOB_LOST'
      && /by vmhub server process 4242 on hub-2\.example, which has since ended without recording its end \(last heard from at \S+Z\)/.test(e.message));
    await store.touchExecJobs(['job-elsewhere']);
    assert.equal((await reader.get('job-elsewhere')).running, true, 'beating again: running again');
  });
});
