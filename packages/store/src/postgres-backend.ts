/**
 * PostgreSQL (kysely's dialect over `pg`), for several hosts sharing one lease table. The pool is
 * created on first use (`pg` is loaded only then); every connection gets a statement timeout and
 * an idle-in-transaction timeout, so a crashed client never holds row locks for long. Migrations
 * run under a transaction-scoped advisory lock: servers starting together migrate once.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import type { Backend } from './backend.ts';
import { StoreVersionError } from './errors.ts';
import { MIGRATIONS } from './migrations/index.ts';
import type { Database } from './schema.ts';
import type { PostgresSettings } from './target.ts';

export const POSTGRES_DEFAULTS = { poolMax: 10, statementTimeoutMs: 10_000, connectTimeoutMs: 3_000, retryForMs: 5_000 } as const satisfies Required<PostgresSettings>;

/** pg_advisory_xact_lock key for migrations: "vmhub" as an int. */
const MIGRATION_LOCK = 0x766d6875;
const INT8_OID = 20;

/** Connection-class failures (SQLSTATE class 08, server shutting down or starting, too many connections) and conflicts that rolled back. */
const TRANSIENT_STATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);
const TRANSIENT_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
const TRANSIENT_TEXT = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|the database system is (starting up|shutting down|in recovery mode)|terminating connection|not queryable|Client was closed/i;

export function isTransientPgError(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown[] } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (code.startsWith('08') || TRANSIENT_STATES.has(code) || TRANSIENT_ERRNO.has(code)) return true;
    if (typeof e.message === 'string' && TRANSIENT_TEXT.test(e.message)) return true;
    // AggregateError (several addresses refused) carries the real ones in `errors`.
    if (Array.isArray(e.errors) && e.errors.some((x) => isTransientPgError(x))) return true;
  }
  return false;
}

export function postgresBackend(url: string, redacted: string, settings: PostgresSettings): Backend {
  const s = { ...POSTGRES_DEFAULTS, ...settings };
  let creating: Promise<Pool> | undefined;
  const getPool = (): Promise<Pool> => {
    creating ??= (async () => {
      const { default: pg } = await import('pg');
      const p = new pg.Pool({
        connectionString: url,
        max: s.poolMax,
        connectionTimeoutMillis: s.connectTimeoutMs,
        statement_timeout: s.statementTimeoutMs,
        // The client gives up too when the server never answers (a partition, not a refusal).
        query_timeout: s.statementTimeoutMs + 2_000,
        idle_in_transaction_session_timeout: 30_000,
        idleTimeoutMillis: 30_000,
        keepAlive: true,
        application_name: 'vmhub',
        // BIGINT (times in ms, ids, counts) as numbers: every value the store keeps fits 2^53.
        types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
      });
      // An idle connection the server drops (a restart) is reported here: the pool replaces it.
      p.on('error', () => undefined);
      // A checked-out client has no listener of the pool's: a connection lost mid-query would emit an unhandled 'error' (crashing the process); the query itself fails with it and is retried.
      p.on('connect', (client) => { client.on('error', () => undefined); });
      return p;
    })();
    return creating;
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: getPool }) });
  let migrated: Promise<void> | undefined;
  const backend: Backend = {
    kind: 'postgres',
    location: redacted,
    db,
    insertionOrder: sql`seq`,
    retryForMs: s.retryForMs,
    ready() {
      migrated ??= (async () => {
        const client = await (await getPool()).connect();
        try {
          await migratePostgres(client);
          client.release();
        } catch (err) {
          client.release(err as Error);
          throw err;
        }
      })().catch((err: unknown) => { migrated = undefined; throw err; });
      return migrated;
    },
    async schemaInfo() {
      await backend.ready();
      const { rows: v } = await sql<{ version: number }>`select coalesce(max(version), 0)::int as version from vmhub_schema`.execute(db);
      const { rows: t } = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema() order by tablename`.execute(db);
      return { kind: 'postgres', version: v[0]?.version ?? 0, tables: t.map((r) => r.name) };
    },
    transient: isTransientPgError,
    // Ends the pool (kysely's driver owns it once it has been used).
    close: () => db.destroy(),
  };
  return backend;
}

/** Apply pending migrations in one transaction under the migration lock. */
async function migratePostgres(client: PoolClient): Promise<{ from: number; to: number }> {
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  // Fast path without the lock: already up to date.
  const exists = await client.query<{ t: string | null }>(`select to_regclass('vmhub_schema')::text as t`);
  if (exists.rows[0]?.t) {
    const { rows } = await client.query<{ v: number }>('select coalesce(max(version), 0)::int as v from vmhub_schema');
    const v = rows[0]?.v ?? 0;
    if (v > latest) throw tooNew(v, latest);
    if (v === latest) return { from: v, to: v };
  }
  await client.query('BEGIN');
  try {
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS vmhub_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const { rows } = await client.query<{ v: number }>('select coalesce(max(version), 0)::int as v from vmhub_schema');
    const from = rows[0]?.v ?? 0;
    if (from > latest) throw tooNew(from, latest);
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      await client.query(m.postgres);
      await client.query('insert into vmhub_schema (version, name, applied_at) values ($1, $2, $3)', [m.version, m.name, Date.now()]);
    }
    await client.query('COMMIT');
    return { from, to: latest };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

function tooNew(version: number, latest: number): StoreVersionError {
  return new StoreVersionError(`[vmhub] [store] database schema version ${version} is newer than this vmhub (${latest}): upgrade vmhub, or point VMHUB_DB at another database`);
}
