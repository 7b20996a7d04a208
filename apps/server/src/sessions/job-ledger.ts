/**
 * Where a lease's detached commands are remembered beyond this process: each `vm_exec {detach}`
 * appends an `exec.detached` event `{job, pid, host, run}` to the lease's events before the
 * command starts. A job's result lives only in the process that started it (core's
 * DetachedJobs); the event lets a later server process (a restart on the same store) answer
 * JOB_LOST — "started by server process P, which has ended" — instead of NOT_FOUND.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { JobLedger, JobOrigin } from '@vmhub/core/router';
import type { Store } from '@vmhub/store';

/** This process among every server process that ever used the store (a pid alone is reused). */
const RUN = randomUUID();
const HOST = hostname();
/** Events read back when looking a job up: far more than a lease's table ever holds at once. */
const LOOKUP_LIMIT = 10_000;

export function jobLedger(store: Store, leaseId: string): JobLedger {
  return {
    async started(job) {
      await store.appendEvent({ lease_id: leaseId, kind: 'exec.detached', actor: `server:${HOST}:${process.pid}`, data: { job, pid: process.pid, host: HOST, run: RUN } });
    },
    async origin(job) {
      const rows = await store.listEvents({ lease_id: leaseId, kind: 'exec.detached', limit: LOOKUP_LIMIT });
      for (const row of rows) {
        let data: { job?: unknown; pid?: unknown; host?: unknown; run?: unknown };
        try { data = JSON.parse(row.data) as typeof data; } catch { continue; }
        if (data.job !== job) continue;
        if (data.run === RUN) return { self: true };
        const pid = typeof data.pid === 'number' ? data.pid : undefined;
        const host = typeof data.host === 'string' ? data.host : undefined;
        const origin: JobOrigin = { self: false, at: row.at, ...(pid !== undefined ? { pid } : {}), ...(host !== undefined ? { host } : {}) };
        // Only a process on this host can be asked whether it still runs (a reused pid may say yes).
        if (pid !== undefined && host === HOST) origin.alive = running(pid);
        return origin;
      }
      return undefined;
    },
  };
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
