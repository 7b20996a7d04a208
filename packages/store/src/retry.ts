/**
 * One store call against a database that may be briefly gone (PostgreSQL restarting, a
 * connection cut): transient failures are retried with backoff until the backend's window
 * closes, then the call fails with StoreUnavailableError. Writes are safe to retry because each
 * call stamps what it writes with one token for all its attempts (store.ts): a retry can see that
 * an attempt whose answer was lost did commit, and never writes an event twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Backend } from './backend.ts';
import { StoreUnavailableError } from './errors.ts';

/** PostgreSQL's query_canceled: the statement ran past statement_timeout. */
const STATEMENT_TIMEOUT = '57014';

export async function withRetry<T>(backend: Backend, what: string, run: (attempt: number) => Promise<T>): Promise<T> {
  const deadline = Date.now() + backend.retryForMs;
  for (let attempt = 0; ; attempt++) {
    try {
      await backend.ready();
      return await run(attempt);
    } catch (err) {
      if ((err as { code?: unknown }).code === STATEMENT_TIMEOUT) {
        throw new StoreUnavailableError(`[vmhub] [store] ${what} on ${backend.location} ran past the statement timeout (${(err as Error).message}): the database is overloaded or a lock is held; retry, or raise statement_timeout_ms in VMHUB_DB`, { cause: err });
      }
      if (!backend.transient(err)) throw err;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new StoreUnavailableError(`[vmhub] [store] ${what}: the database at ${backend.location} is unreachable (${(err as Error).message}; retried ${attempt + 1}× over ${backend.retryForMs} ms): check that PostgreSQL is running and VMHUB_DB is right; vmhub recovers by itself when it answers again`, { cause: err });
      }
      await sleep(Math.min(left, 25 * 2 ** Math.min(attempt, 5)));
    }
  }
}
