/**
 * Leadership: at most one process of a store holds a name at a time (the reaper's
 * `--coordination leader`). On PostgreSQL it is a session advisory lock
 * (pg_try_advisory_lock) on a dedicated connection, outside the pool: PostgreSQL drops it the
 * moment that session ends (the holder exits or is killed, its connection is cut), so there is
 * no lapse to wait for. TCP keepalives are set on the session so that a holder whose host
 * vanished without closing its socket is noticed within about half a minute. On SQLite (one
 * host) it is the store's lapsing named lock (locks.ts), renewed by every acquire().
 *
 * Leadership is not a fence: a leader cut off from the database may still be mid-pass when
 * another takes over. Teardowns keep their row claims in every mode; leadership only decides
 * who runs passes.
 */
import type { Kysely } from 'kysely';
import type { Client } from 'pg';
import * as locks from './locks.ts';
import type { Database } from './schema.ts';

export interface Leadership {
  /** Take the leadership if free, or confirm this process still holds it. False: another holds it (or the database is unreachable). */
  acquire(): Promise<boolean>;
  /** Give it up (and, on PostgreSQL, close the dedicated connection). */
  release(): Promise<void>;
}

/** First key of the two-int advisory lock space vmhub uses ("vmhu"); the migration lock uses the one-bigint space. */
const LOCK_SPACE = 0x766d6875;

/** A stable int4 for a name (FNV-1a). */
export function leadershipKey(name: string): number {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(name, 'utf8')) h = Math.imul(h ^ ch, 0x01000193);
  return h | 0;
}

export function postgresLeadership(url: string, name: string, options: { connectTimeoutMs: number; statementTimeoutMs: number }): Leadership {
  const key = leadershipKey(name);
  let client: Client | undefined;
  let held = false;
  const drop = (c: Client | undefined) => {
    if (!c || client !== c) return;
    client = undefined;
    held = false;
    c.end().catch(() => undefined);
  };
  return {
    async acquire() {
      let c = client;
      try {
        if (!c) {
          const { default: pg } = await import('pg');
          c = new pg.Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs, query_timeout: options.statementTimeoutMs, keepAlive: true, application_name: 'vmhub-leader' });
          const mine = c;
          // A lost connection loses the lock with it: forget both, take them again next time.
          c.on('error', () => drop(mine));
          c.on('end', () => drop(mine));
          client = c;
          await c.connect();
          await c.query("SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3");
        }
        if (held) {
          // Still ours while the session lives: one round trip proves it.
          await c.query('SELECT 1');
          return true;
        }
        const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LOCK_SPACE, key]);
        held = rows[0]?.ok === true;
        return held;
      } catch {
        drop(c);
        return false;
      }
    },
    async release() {
      const c = client;
      if (!c) return;
      if (held) await c.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_SPACE, key]).catch(() => undefined);
      drop(c);
    },
  };
}

export function lapsingLeadership(db: Kysely<Database>, name: string, holder: string, ttlMs: number): Leadership {
  return {
    acquire: () => locks.acquireLock(db, name, holder, Date.now() + ttlMs).catch(() => false),
    release: () => locks.releaseLock(db, name, holder).catch(() => undefined),
  };
}
