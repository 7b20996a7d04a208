import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecResult } from '../channel.ts';
import { VmhubError } from '../errors.ts';
import { DetachedJobs, MAX_JOBS_PER_LEASE, type JobLedger, type JobOrigin } from './jobs.ts';

const result = (out: string): ExecResult => ({ exit_code: 0, stdout: Buffer.from(out), stderr: Buffer.alloc(0), timed_out: false, truncated: false });
const never = () => new Promise<ExecResult>(() => undefined);
const code = (c: string) => (e: unknown) => VmhubError.is(e) && e.code === c;

/** A ledger in memory: what a store would keep, ids of this "process" and of others. */
function ledger(others: Record<string, JobOrigin> = {}): JobLedger & { ids: string[] } {
  const ids: string[] = [];
  return {
    ids,
    async started(id) { ids.push(id); },
    async origin(id) { return ids.includes(id) ? { self: true } : others[id]; },
  };
}

describe('core: detached commands', () => {
  it('a job runs on after start returns, is read by id, and ends with its result', async () => {
    const jobs = new DetachedJobs();
    let finish!: (r: ExecResult) => void;
    const id = await jobs.start(() => new Promise((r) => { finish = r; }));
    assert.match(id, /^job-[0-9a-f-]{36}$/);
    assert.equal((await jobs.get(id)).running, true);
    finish(result('built'));
    await new Promise((r) => setImmediate(r));
    assert.equal((await jobs.get(id)).running, false);
    assert.equal((await jobs.get(id)).result!.stdout.toString(), 'built');
    await assert.rejects(jobs.get('job-nope'), code('NOT_FOUND'));
  });

  it('ending the lease aborts every running job\'s signal and refuses new ones', async () => {
    const jobs = new DetachedJobs();
    const signals: AbortSignal[] = [];
    for (let i = 0; i < 3; i++) await jobs.start((signal) => { signals.push(signal); return never(); });
    assert.equal(jobs.running, 3);
    jobs.dispose();
    assert.ok(signals.every((s) => s.aborted), 'the commands are killed (their exec signal aborted)');
    await assert.rejects(jobs.start(async () => result('')), code('LEASE_EXPIRED'));
  });

  it(`at most ${MAX_JOBS_PER_LEASE} per lease: finished ones make room, running ones do not`, async () => {
    const jobs = new DetachedJobs();
    const first = await jobs.start(async () => result('done'));
    await new Promise((r) => setImmediate(r));
    for (let i = 1; i < MAX_JOBS_PER_LEASE; i++) await jobs.start(never);
    await jobs.start(never); // evicts the finished one
    await assert.rejects(jobs.get(first), /no detached command/);
    await assert.rejects(jobs.start(never), code('QUOTA_EXCEEDED'));
    jobs.dispose();
  });

  it('with a ledger: each id is recorded before its command starts; an id of an ended server is JOB_LOST, a forgotten one of this process NOT_FOUND, an unknown one NOT_FOUND', async () => {
    const l = ledger({
      'job-of-a-dead-server': { self: false, pid: 4242, host: 'hub-1', at: Date.parse('2026-01-02T03:04:05Z'), alive: false },
      'job-of-a-live-server': { self: false, pid: 77, host: 'hub-1', alive: true },
    });
    const jobs = new DetachedJobs(l);
    let recordedFirst = false;
    const id = await jobs.start(async () => { recordedFirst = l.ids.length === 1; return result('x'); });
    assert.deepEqual(l.ids, [id]);
    assert.ok(recordedFirst, 'the ledger had the id before the command ran');

    await assert.rejects(jobs.get('job-of-a-dead-server'), (e: unknown) => VmhubError.is(e) && e.code === 'JOB_LOST' && e.retryable === false
      && /started at 2026-01-02T03:04:05.000Z by vmhub server process 4242 on hub-1, which has since ended/.test(e.message)
      && e.details?.server_running === false && /vm_get_file/.test(e.hint));
    await assert.rejects(jobs.get('job-of-a-live-server'), (e: unknown) => VmhubError.is(e) && e.code === 'JOB_LOST' && /still runs/.test(e.message));
    await assert.rejects(jobs.get('job-never-given'), code('NOT_FOUND'));

    // This process's own finished job, forgotten to make room, is not blamed on another server.
    await new Promise((r) => setImmediate(r));
    for (let i = 1; i <= MAX_JOBS_PER_LEASE; i++) await jobs.start(never);
    await assert.rejects(jobs.get(id), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND' && /forgotten/.test(e.message));
    jobs.dispose();
  });

  it('a ledger that cannot record refuses the start: no command runs unrecorded', async () => {
    const jobs = new DetachedJobs({ started: async () => { throw new VmhubError('STORE_UNAVAILABLE', 'down'); }, origin: async () => undefined });
    let ran = false;
    await assert.rejects(jobs.start(async () => { ran = true; return result(''); }), code('STORE_UNAVAILABLE'));
    assert.equal(ran, false);
    assert.equal(jobs.running, 0);
  });
});
