import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecResult } from '../channel.ts';
import { VmhubError } from '../errors.ts';
import { DetachedJobs, MAX_JOBS_PER_LEASE, type JobLedger, type JobOrigin, type JobOutcome } from './jobs.ts';

const result = (out: string): ExecResult => ({ exit_code: 0, stdout: Buffer.from(out), stderr: Buffer.alloc(0), timed_out: false, truncated: false });
const never = () => new Promise<ExecResult>(() => undefined);
const code = (c: string) => (e: unknown) => VmhubError.is(e) && e.code === c;

type Kept = Map<string, { process: string; outcome?: JobOutcome }>;

/**
 * A ledger in memory: what a store keeps, for one "process" (`me`); `kept` is the store, shared
 * by every process's ledger; `others` are jobs of processes the test only describes.
 */
function ledger(others: Record<string, JobOrigin> = {}, kept: Kept = new Map(), me = 'p1', record = true): JobLedger & { ids: string[] } {
  const ids: string[] = [];
  return {
    ids,
    async started(id) { ids.push(id); kept.set(id, { process: me }); },
    async finished(id, outcome) {
      if (!record) throw new VmhubError('STORE_UNAVAILABLE', 'down');
      kept.get(id)!.outcome = outcome;
    },
    async origin(id) {
      const k = kept.get(id);
      return k ? { self: k.process === me, alive: true, ...(k.outcome ? { outcome: k.outcome } : {}) } : others[id];
    },
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

  it('with a ledger: each id is recorded before its command starts; an id of an ended server is JOB_LOST, of a live one running, a forgotten one of this process its recorded result, an unknown one NOT_FOUND', async () => {
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
    assert.equal((await jobs.get('job-of-a-live-server')).running, true, 'a job another live process runs reads as running');
    await assert.rejects(jobs.get('job-never-given'), code('NOT_FOUND'));

    // This process's own finished job, forgotten to make room, is answered from the ledger.
    await new Promise((r) => setImmediate(r));
    for (let i = 1; i <= MAX_JOBS_PER_LEASE; i++) await jobs.start(never);
    const kept = await jobs.get(id);
    assert.equal(kept.running, false);
    assert.equal(kept.result?.stdout.toString(), 'x');
    jobs.dispose();
  });

  it('two processes on one ledger: either answers the job — running, then its result or its error; no process says running after another said ended', async () => {
    const store: Kept = new Map();
    const a = new DetachedJobs(ledger({}, store, 'a'));
    const b = new DetachedJobs(ledger({}, store, 'b'));
    let finish!: (r: ExecResult) => void;
    let fail!: (e: unknown) => void;
    const ok = await a.start(() => new Promise((r) => { finish = r; }));
    const bad = await a.start(() => new Promise((_, f) => { fail = f; }));
    assert.equal((await b.get(ok)).running, true);
    finish(result('built in a'));
    fail(new VmhubError('TIMEOUT', 'the command ran past its timeout'));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    const local = await a.get(ok);
    assert.equal(local.running, false);
    const read = await b.get(ok);
    assert.equal(read.running, false);
    assert.equal(read.result?.stdout.toString(), 'built in a');
    const err = (await b.get(bad)).error;
    assert.ok(VmhubError.is(err) && err.code === 'TIMEOUT' && err.message === 'the command ran past its timeout');
    a.dispose();
    b.dispose();
  });

  it('a ledger that cannot record an end: the process that ran the job still answers it; its forgotten job is NOT_FOUND, not blamed on another', async () => {
    const jobs = new DetachedJobs(ledger({}, new Map(), 'p1', false));
    const id = await jobs.start(async () => result('kept in memory'));
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    assert.equal((await jobs.get(id)).result?.stdout.toString(), 'kept in memory');
    for (let i = 1; i <= MAX_JOBS_PER_LEASE; i++) await jobs.start(never);
    await assert.rejects(jobs.get(id), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND' && /forgotten/.test(e.message));
    jobs.dispose();
  });

  it('a ledger that cannot record refuses the start: no command runs unrecorded', async () => {
    const jobs = new DetachedJobs({ started: async () => { throw new VmhubError('STORE_UNAVAILABLE', 'down'); }, finished: async () => undefined, origin: async () => undefined });
    let ran = false;
    await assert.rejects(jobs.start(async () => { ran = true; return result(''); }), code('STORE_UNAVAILABLE'));
    assert.equal(ran, false);
    assert.equal(jobs.running, 0);
  });
});
