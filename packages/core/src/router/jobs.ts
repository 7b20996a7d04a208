/**
 * Detached commands (`vm_exec {detach: true}`): for clients that cannot wait out a long command
 * (no progress support, a 60 s request timeout), the command runs on under the lease and the call
 * returns a job id at once; `vm_exec {job}` reads whether it still runs, then its result. The
 * table belongs to the lease's session: when the lease ends, its running jobs are killed in the
 * guest (their signal aborts) and the table is dropped.
 */
import { randomUUID } from 'node:crypto';
import type { ExecResult } from '../channel.ts';
import { VmhubError } from '../errors.ts';

/** At most this many jobs per lease: running ones count; finished ones are forgotten oldest first. */
export const MAX_JOBS_PER_LEASE = 16;

interface Job {
  started: number;
  running: boolean;
  result?: ExecResult;
  error?: unknown;
}

export class DetachedJobs {
  readonly #jobs = new Map<string, Job>();
  readonly #abort = new AbortController();

  /** Start `run` detached with a signal that aborts when the lease ends; returns the job id. */
  start(run: (signal: AbortSignal) => Promise<ExecResult>): string {
    if (this.#abort.signal.aborted) throw new VmhubError('LEASE_EXPIRED', 'the lease has ended: no new commands start on it');
    if (this.#jobs.size >= MAX_JOBS_PER_LEASE) {
      const done = [...this.#jobs].find(([, j]) => !j.running);
      if (!done) throw new VmhubError('QUOTA_EXCEEDED', `this lease already runs ${MAX_JOBS_PER_LEASE} detached commands`, { hint: 'Wait for one to finish (vm_exec {job}) and retry.' });
      this.#jobs.delete(done[0]);
    }
    const id = `job-${randomUUID()}`;
    const job: Job = { started: Date.now(), running: true };
    this.#jobs.set(id, job);
    run(this.#abort.signal).then((r) => { job.result = r; }, (err: unknown) => { job.error = err; }).finally(() => { job.running = false; });
    return id;
  }

  /** The job's state; NOT_FOUND for an id this lease never gave. */
  get(id: string): Job {
    const job = this.#jobs.get(id);
    if (!job) throw new VmhubError('NOT_FOUND', `no detached command "${id.slice(0, 64)}" on this lease`, { hint: 'Use the job id vm_exec {detach: true} returned on this lease.' });
    return job;
  }

  get running(): number {
    let n = 0;
    for (const j of this.#jobs.values()) if (j.running) n++;
    return n;
  }

  /** The lease ended: kill what runs, forget everything. */
  dispose(): void {
    this.#abort.abort(new VmhubError('LEASE_EXPIRED', 'the lease ended while the command ran'));
    this.#jobs.clear();
  }
}
