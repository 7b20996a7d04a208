/** The embedded default: one SQLite file (WAL, busy timeout) shared by every process on a host. */
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Backend } from './backend.ts';
import type { Database } from './schema.ts';
import { openSqlite } from './sqlite-file.ts';

export function sqliteBackend(path: string, options: { busyTimeoutMs: number; readonly: boolean }): Backend {
  // Opened (and migrated) at once: a bad path or a too-new file fails the constructor.
  const sqlite = openSqlite(path, options);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
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
