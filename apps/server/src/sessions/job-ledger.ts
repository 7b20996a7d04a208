/**
 * Where a lease's detached commands are kept beyond this process: the store's exec_jobs table
 * (and an `exec.detached` event in the audit log). Each `vm_exec {detach}` is recorded with this
 * process ({pid, host, run}) before its command starts, and its outcome when it ends — the
 * result (stdout and stderr as base64) or the error's payload, sealed by the store. So any server
 * process of the store (another HTTP server behind the same balancer, the next one after a
 * restart) answers the job: running in another process, its result once ended, or JOB_LOST when
 * the process that ran it has ended without recording an end.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { VmhubError, type ErrorPayload, type ExecResult } from '@vmhub/core';
import type { JobLedger, JobOrigin, JobOutcome } from '@vmhub/core/router';
import type { Store } from '@vmhub/store';
import { log } from '../log.ts';

/** This process among every server process that ever used the store (a pid alone is reused). */
const RUN = randomUUID();
const HOST = hostname();

/** An outcome as stored (JSON, then sealed). */
type StoredOutcome =
  | { result: { exit_code: number | null; stdout: string; stderr: string; timed_out: boolean; truncated: boolean } }
  | { error: ErrorPayload };

export function jobLedger(store: Store, leaseId: string): JobLedger {
  return {
    async started(job) {
      await store.addExecJob({ id: job, lease_id: leaseId, started_by: { pid: process.pid, host: HOST, run: RUN } });
      await store.appendEvent({ lease_id: leaseId, kind: 'exec.detached', actor: `server:${HOST}:${process.pid}`, data: { job, pid: process.pid, host: HOST, run: RUN } });
    },
    async finished(job, outcome) {
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
      const origin: JobOrigin = { self: run === RUN, at: row.started_at, pid, host };
      if (row.outcome !== undefined) origin.outcome = parsed(JSON.parse(row.outcome) as StoredOutcome);
      // Only a process on this host can be asked whether it still runs (a reused pid may say yes).
      else if (host === HOST && !origin.self) origin.alive = running(pid);
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
  if ('error' in o) {
    const e = o.error;
    return { error: new VmhubError(e.code, e.message, { retryable: e.retryable, hint: e.hint, ...(e.source ? { source: e.source } : {}), ...(e.details ? { details: e.details } : {}) }) };
  }
  const r = o.result;
  const result: ExecResult = { exit_code: r.exit_code, stdout: Buffer.from(r.stdout, 'base64'), stderr: Buffer.from(r.stderr, 'base64'), timed_out: r.timed_out, truncated: r.truncated };
  return { result };
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
