/**
 * Where a lease's detached commands are kept beyond this process: the store's exec_jobs table
 * (and an `exec.detached` event in the audit log). Each `vm_exec {detach}` is recorded with this
 * process ({pid, host, run}) before its command starts, and its outcome when it ends — the
 * result (stdout and stderr as base64) or the error's payload, sealed by the store. While jobs
 * run, this process beats for them (one UPDATE of `seen_at` every BEAT_MS for all of them). So
 * any server process of the store (another HTTP server behind the same balancer, the next one
 * after a restart) answers a job: running in another process, its result once ended, or JOB_LOST
 * when the process that ran it ended without recording an end — known by asking the pid on the
 * same host, by a heartbeat older than STALE_MS from another (hosts' clocks must agree within
 * that, as NTP keeps them).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { fromErrorPayload, type ErrorPayload, type ExecResult } from '@vmhub/core';
import type { JobLedger, JobOrigin, JobOutcome } from '@vmhub/core/router';
import type { Store } from '@vmhub/store';
import { log } from '../log.ts';

/** This process among every server process that ever used the store (a pid alone is reused). */
const RUN = randomUUID();
const HOST = hostname();
/** How often a process beats for the jobs it runs. */
const BEAT_MS = 15_000;
/** A job of another host whose process has not beaten for this long: that process is gone. */
const STALE_MS = 90_000;

export interface JobLedgerOptions {
  beatMs?: number;
  staleMs?: number;
}

/** An outcome as stored (JSON, then sealed). */
type StoredOutcome =
  | { result: { exit_code: number | null; stdout: string; stderr: string; timed_out: boolean; truncated: boolean } }
  | { error: ErrorPayload };

/** The jobs this process runs on one store, and the timer that beats for them while there are any. */
interface Beat {
  ids: Set<string>;
  timer?: NodeJS.Timeout;
}
const beats = new WeakMap<Store, Beat>();

export function jobLedger(store: Store, leaseId: string, options: JobLedgerOptions = {}): JobLedger {
  const beatMs = options.beatMs ?? BEAT_MS;
  const staleMs = options.staleMs ?? STALE_MS;
  let beat = beats.get(store);
  if (!beat) beats.set(store, beat = { ids: new Set() });
  const b = beat;

  function running(job: string): void {
    b.ids.add(job);
    b.timer ??= setInterval(() => {
      store.touchExecJobs([...b.ids]).catch((err: Error) => log('warn', 'the heartbeat of detached commands was not recorded', { jobs: b.ids.size, error: err.message }));
    }, beatMs).unref();
  }
  function ended(job: string): void {
    b.ids.delete(job);
    if (b.ids.size === 0 && b.timer) { clearInterval(b.timer); b.timer = undefined; }
  }

  return {
    async started(job) {
      // The audit event first: a row is only ever written for a job whose command then starts.
      await store.appendEvent({ lease_id: leaseId, kind: 'exec.detached', actor: `server:${HOST}:${process.pid}`, data: { job, pid: process.pid, host: HOST, run: RUN } });
      await store.addExecJob({ id: job, lease_id: leaseId, started_by: { pid: process.pid, host: HOST, run: RUN } });
      running(job);
    },
    async finished(job, outcome) {
      ended(job);
      try {
        await store.finishExecJob(job, JSON.stringify(stored(outcome)));
      } catch (err) {
        log('warn', 'a detached command ended but its end was not recorded: only this process answers it', { lease: leaseId, job, error: (err as Error).message });
      }
    },
    async origin(job) {
      const row = await store.execJob(leaseId, job);
      if (!row) return undefined;
      const { pid, host, run } = row.started_by;
      const origin: JobOrigin = { self: run === RUN, at: row.started_at, pid, host, seen: row.seen_at };
      if (row.outcome !== undefined) origin.outcome = parsed(JSON.parse(row.outcome) as StoredOutcome);
      // On this host the pid answers (a reused pid may say yes); from another, the heartbeat.
      else if (!origin.self) origin.alive = host === HOST ? alive(pid) : Date.now() - row.seen_at < staleMs;
      return origin;
    },
  };
}

function stored(o: JobOutcome): StoredOutcome {
  if ('error' in o) return { error: o.error.toJSON() };
  const r = o.result;
  return { result: { exit_code: r.exit_code, stdout: r.stdout.toString('base64'), stderr: r.stderr.toString('base64'), timed_out: r.timed_out, truncated: r.truncated } };
}

function parsed(o: StoredOutcome): JobOutcome {
  if ('error' in o) return { error: fromErrorPayload(o.error) };
  const r = o.result;
  const result: ExecResult = { exit_code: r.exit_code, stdout: Buffer.from(r.stdout, 'base64'), stderr: Buffer.from(r.stderr, 'base64'), timed_out: r.timed_out, truncated: r.truncated };
  return { result };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
