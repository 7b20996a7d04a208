import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecResult } from '../channel.ts';
import { VmhubError } from '../errors.ts';
import { DetachedJobs, MAX_JOBS_PER_LEASE } from './jobs.ts';

const result = (out: string): ExecResult => ({ exit_code: 0, stdout: Buffer.from(out), stderr: Buffer.alloc(0), timed_out: false, truncated: false });

describe('core: detached commands', () => {
  it('a job runs on after start returns, is read by id, and ends with its result', async () => {
    const jobs = new DetachedJobs();
    let finish!: (r: ExecResult) => void;
    const id = jobs.start(() => new Promise((r) => { finish = r; }));
    assert.match(id, /^job-[0-9a-f-]{36}$/);
    assert.equal(jobs.get(id).running, true);
    finish(result('built'));
    await new Promise((r) => setImmediate(r));
    assert.equal(jobs.get(id).running, false);
    assert.equal(jobs.get(id).result!.stdout.toString(), 'built');
    assert.throws(() => jobs.get('job-nope'), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND');
  });

  it('ending the lease aborts every running job\'s signal and refuses new ones', async () => {
    const jobs = new DetachedJobs();
    const signals: AbortSignal[] = [];
    for (let i = 0; i < 3; i++) jobs.start((signal) => { signals.push(signal); return new Promise<ExecResult>(() => undefined); });
    assert.equal(jobs.running, 3);
    jobs.dispose();
    assert.ok(signals.every((s) => s.aborted), 'the commands are killed (their exec signal aborted)');
    assert.throws(() => jobs.start(async () => result('')), (e: unknown) => VmhubError.is(e) && e.code === 'LEASE_EXPIRED');
  });

  it(`at most ${MAX_JOBS_PER_LEASE} per lease: finished ones make room, running ones do not`, async () => {
    const jobs = new DetachedJobs();
    const first = jobs.start(async () => result('done'));
    await new Promise((r) => setImmediate(r));
    for (let i = 1; i < MAX_JOBS_PER_LEASE; i++) jobs.start(() => new Promise<ExecResult>(() => undefined));
    jobs.start(() => new Promise<ExecResult>(() => undefined)); // evicts the finished one
    assert.throws(() => jobs.get(first), /no detached command/);
    assert.throws(() => jobs.start(() => new Promise<ExecResult>(() => undefined)), (e: unknown) => VmhubError.is(e) && e.code === 'QUOTA_EXCEEDED');
    jobs.dispose();
  });
});
