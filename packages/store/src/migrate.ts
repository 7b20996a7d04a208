import type BetterSqlite3 from 'better-sqlite3';
import { StoreVersionError } from './errors.ts';
import { MIGRATIONS } from './migrations/index.ts';

export { StoreVersionError };

/** Apply pending SQLite migrations; safe when several processes open the same file at once (PostgreSQL: postgres-backend.ts). */
export function migrate(db: BetterSqlite3.Database): { from: number; to: number } {
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  const current = () => db.pragma('user_version', { simple: true }) as number;
  const before = current();
  if (before === latest) return { from: before, to: before };
  db.exec('BEGIN IMMEDIATE');
  try {
    const from = current();
    if (from > latest) {
      throw new StoreVersionError(`[vmhub] [store] database schema version ${from} is newer than this vmhub (${latest}): upgrade vmhub, or point VMHUB_DB at another file`);
    }
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }
    db.exec('COMMIT');
    return { from, to: latest };
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}
