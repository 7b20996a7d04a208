/**
 * Detached commands (table exec_jobs, migration 10): `vm_exec {detach: true}` runs a command on
 * under a lease in the server process that started it; its row lets every other process of the
 * store answer the job — running (and where), its result once it ended, or that the process which
 * ran it ended first. The row is written before the command starts; while the job runs, its
 * process sets `seen_at` again every little while (touch: one statement for all its running jobs),
 * so a process on another host can tell a job still running from one whose process is gone. Its
 * outcome (the result or the error, as JSON) is sealed by the store (sealed.ts): a command's
 * output may hold secrets. Each write is one statement, safe to retry (an insert of an id already
 * written is skipped; an outcome is set once). A lease's rows go when it ends (teardowns.ts).
 */
import type { Kysely } from 'kysely';
import type { Database, ExecJobTable } from './schema.ts';

/** The server process that runs a job. */
export interface JobProcess {
  pid: number;
  host: string;
  /** The process among every process that ever used the store (a pid alone is reused). */
  run: string;
}

export interface ExecJob {
  id: string;
  lease_id: string;
  started_at: number;
  started_by: JobProcess;
  /** The last heartbeat of its process while it ran (ms). */
  seen_at: number;
  /** undefined while it runs (or its process ended before it could say). */
  finished_at: number | undefined;
  /** What the job ended with, as its process wrote it (unsealed JSON); undefined while it runs. */
  outcome: string | undefined;
}

export async function insert(db: Kysely<Database>, row: ExecJobTable): Promise<void> {
  await db.insertInto('exec_jobs').values(row).onConflict((oc) => oc.column('id').doNothing()).execute();
}

/** Set the job's end once: a second write (a retried statement, a late duplicate) changes nothing. */
export async function finish(db: Kysely<Database>, id: string, sealed: string, at: number): Promise<void> {
  await db.updateTable('exec_jobs').set({ finished_at: at, outcome: sealed }).where('id', '=', id).where('finished_at', 'is', null).execute();
}

/** Its process still runs these jobs: their heartbeat (jobs already ended are left alone). */
export async function touch(db: Kysely<Database>, ids: readonly string[], at: number): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('exec_jobs').set({ seen_at: at }).where('id', 'in', ids).where('finished_at', 'is', null).execute();
}

export async function get(db: Kysely<Database>, leaseId: string, id: string): Promise<ExecJobTable | undefined> {
  return db.selectFrom('exec_jobs').selectAll().where('id', '=', id).where('lease_id', '=', leaseId).executeTakeFirst();
}

export function fromRow(row: ExecJobTable, open: (sealed: string, id: string) => string): ExecJob {
  return {
    id: row.id,
    lease_id: row.lease_id,
    started_at: row.started_at,
    started_by: JSON.parse(row.started_by) as JobProcess,
    seen_at: row.seen_at,
    finished_at: row.finished_at ?? undefined,
    outcome: row.outcome === null ? undefined : open(row.outcome, row.id),
  };
}
