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
  // A table rebuild drops a table others reference: SQLite's procedure turns foreign keys off
  // around the transaction (the pragma is a no-op inside one) and checks them before committing.
  const rebuilds = MIGRATIONS.some((m) => m.version > before && m.rebuild);
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) === 1;
  if (rebuilds && foreignKeys) db.pragma('foreign_keys = OFF');
  try {
    return migrateLocked(db, latest, current);
  } finally {
    if (rebuilds && foreignKeys) db.pragma('foreign_keys = ON');
  }
}

function migrateLocked(db: BetterSqlite3.Database, latest: number, current: () => number): { from: number; to: number } {
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
    const broken = db.pragma('foreign_key_check') as unknown[];
    if (broken.length > 0) throw new Error(`[vmhub] [store] migrating to schema ${latest} left ${broken.length} rows whose reference is gone; nothing was changed`);
    db.exec('COMMIT');
    return { from, to: latest };
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}
