/**
 * Detached commands (`vm_exec {detach: true}`): for clients that cannot wait out a long command
 * (no progress support, a 60 s request timeout), the command runs on under the lease and the call
 * returns a job id at once; `vm_exec {job}` reads whether it still runs, then its result. The
 * table belongs to the lease's session: when the lease ends, its running jobs are killed in the
 * guest (their signal aborts) and the table is dropped.
 *
 * A job runs in the server process that started it: its command is that process's exec. With a
 * ledger (the server's store), every job is recorded before its command starts and its outcome
 * when it ends, so any server process of the store answers it — running (in another process), its
 * result or error once ended — and a job whose process ended before it did answers JOB_LOST
 * ("ended with the server that started it") rather than NOT_FOUND ("never existed").
 */
import { randomUUID } from 'node:crypto';
import type { ExecResult } from '../channel.ts';
import { asVmhubError, VmhubError } from '../errors.ts';

/** The process that started a job, as a ledger recorded it. */
export interface JobOrigin {
  /** Started by this very process (its table forgot the job: a finished one made room). */
  self: boolean;
  pid?: number;
  host?: string;
  /** When it was started (ms). */
  at?: number;
  /** Whether that process still runs, when this process can tell (same host, or its heartbeat); undefined: cannot. */
  alive?: boolean;
  /** That process's last heartbeat for the job (ms), when the ledger keeps one. */
  seen?: number;
  /** How the job ended, once its process recorded it. */
  outcome?: JobOutcome;
}

/** How a job ended: its command's result, or why it has none. */
export type JobOutcome = { result: ExecResult } | { error: VmhubError };

/** Jobs kept beyond this process (the server records them in its store). */
export interface JobLedger {
  /** Record that this process starts `id`; awaited before the command starts (a failure refuses the start). */
  started(id: string): Promise<void>;
  /**
   * Record how `id` ended, for every process of the store; awaited before this process itself
   * answers the job as ended, so no process answers "running" after another answered its result.
   * A failure is the ledger's to report: this process still answers the job from memory.
   */
  finished(id: string, outcome: JobOutcome): Promise<void>;
  /** Which process started `id` on this lease, and how it ended if it did; undefined when none did. */
  origin(id: string): Promise<JobOrigin | undefined>;
}

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
  readonly #ledger: JobLedger | undefined;

  constructor(ledger?: JobLedger) {
    this.#ledger = ledger;
  }

  /**
   * Start `run` detached with a signal that aborts when the lease ends; resolves the job id once
   * the ledger (if any) has recorded it and the command has started.
   */
  async start(run: (signal: AbortSignal) => Promise<ExecResult>): Promise<string> {
    this.#room();
    const id = `job-${randomUUID()}`;
    await this.#ledger?.started(id);
    // Checked again: the lease may have ended, or other starts filled the table, meanwhile.
    this.#room();
    const job: Job = { started: Date.now(), running: true };
    this.#jobs.set(id, job);
    const ended = async (outcome: JobOutcome): Promise<void> => {
      await this.#ledger?.finished(id, outcome).catch(() => undefined);
      if ('result' in outcome) job.result = outcome.result;
      else job.error = outcome.error;
      job.running = false;
    };
    void run(this.#abort.signal).then((result) => ended({ result }), (err: unknown) => ended({ error: asVmhubError(err) }));
    return id;
  }

  #room(): void {
    if (this.#abort.signal.aborted) throw new VmhubError('LEASE_EXPIRED', 'the lease has ended: no new commands start on it');
    if (this.#jobs.size >= MAX_JOBS_PER_LEASE) {
      const done = [...this.#jobs].find(([, j]) => !j.running);
      if (!done) throw new VmhubError('QUOTA_EXCEEDED', `this lease already runs ${MAX_JOBS_PER_LEASE} detached commands`, { hint: 'Wait for one to finish (vm_exec {job}) and retry.' });
      this.#jobs.delete(done[0]);
    }
  }

  /**
   * The job's state. An id this process does not hold, from the ledger: its outcome once recorded;
   * running while the process that started it may still run it; JOB_LOST when that process has
   * ended without recording one; NOT_FOUND when no process started it.
   */
  async get(id: string): Promise<Job> {
    const job = this.#jobs.get(id);
    if (job) return job;
    const shown = id.slice(0, 64);
    const origin = await this.#ledger?.origin(id);
    const outcome = origin?.outcome;
    if (outcome) return { started: origin.at ?? 0, running: false, ...('result' in outcome ? { result: outcome.result } : { error: outcome.error }) };
    if (origin && !origin.self && origin.alive !== false) return { started: origin.at ?? 0, running: true };
    if (origin?.self) throw new VmhubError('NOT_FOUND', `detached command "${shown}" finished and was forgotten: a lease keeps the newest ${MAX_JOBS_PER_LEASE}`, { hint: 'Read a job\'s result soon after it ends; for more jobs at once, write each one\'s output to a file and read it with vm_get_file.' });
    if (origin) throw jobLost(shown, origin);
    throw new VmhubError('NOT_FOUND', `no detached command "${shown}" on this lease`, { hint: 'Use the job id vm_exec {detach: true} returned on this lease.' });
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

function jobLost(id: string, o: JobOrigin): VmhubError {
  const who = `vmhub server process${o.pid !== undefined ? ` ${o.pid}` : ''}${o.host ? ` on ${o.host}` : ''}`;
  const when = o.at !== undefined ? ` at ${new Date(o.at).toISOString()}` : '';
  const details = { job: id, ...(o.pid !== undefined ? { pid: o.pid } : {}), ...(o.host ? { host: o.host } : {}), ...(o.alive !== undefined ? { server_running: o.alive } : {}) };
  const heard = o.seen !== undefined ? ` (last heard from at ${new Date(o.seen).toISOString()})` : '';
  return new VmhubError('JOB_LOST', `detached command "${id}" was started${when} by ${who}, which has since ended without recording its end${heard}: a detached command belongs to the server process that started it, and its result went with that process (in the guest the command may have been killed or may have run on)`, { details });
}
