/** The embedded default: one SQLite file (WAL, busy timeout) shared by every process on a host. */
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Backend } from './backend.ts';
import type { Database } from './schema.ts';
import { openSqlite } from './sqlite-file.ts';

/** How many prepared statements a store keeps: its queries are a fixed set, a few dozen shapes. */
const STATEMENT_CACHE = 256;

type SqliteDatabase = ReturnType<typeof openSqlite>;

/**
 * The database as Kysely's driver sees it, with `prepare` remembering each SQL text's statement:
 * the driver prepares every query anew, and preparing was the store's largest cost per tool call
 * (bench/RESULTS.md, concurrent). Statements are run with all()/run() only (the store streams
 * nothing), so one statement per text is never busy twice; least recently used ones are dropped.
 */
function cachingStatements(sqlite: SqliteDatabase): { close(): void; prepare(sql: string): ReturnType<SqliteDatabase['prepare']> } {
  const cache = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  return {
    close: () => { cache.clear(); sqlite.close(); },
    prepare(text: string) {
      let stmt = cache.get(text);
      if (stmt) cache.delete(text);
      else stmt = sqlite.prepare(text);
      cache.set(text, stmt);
      if (cache.size > STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
      return stmt;
    },
  };
}

export function sqliteBackend(path: string, options: { busyTimeoutMs: number; readonly: boolean }): Backend {
  // Opened (and migrated) at once: a bad path or a too-new file fails the constructor.
  const sqlite = openSqlite(path, options);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingStatements(sqlite) }) });
  return {
    kind: 'sqlite',
    location: path,
    db,
    insertionOrder: sql`rowid`,
    retryForMs: 0,
    ready: () => Promise.resolve(),
    async schemaInfo() {
      const tables = (sqlite.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as { name: string }[]).map((r) => r.name);
      return { kind: 'sqlite', version: sqlite.pragma('user_version', { simple: true }) as number, tables, journalMode: String(sqlite.pragma('journal_mode', { simple: true })) };
    },
    // One process, one file: busy_timeout already waits for other writers; nothing to reconnect.
    transient: () => false,
    close: () => db.destroy(),
  };
}
