/**
 * Opening the SQLite file the way every vmhub process must: parent directories created, busy
 * timeout, WAL, foreign keys, migrations applied.
 */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { migrate } from './migrate.ts';
import { nativeAddonError } from './native-addon.ts';

export function openSqlite(path: string, options: { busyTimeoutMs: number; readonly: boolean }): BetterSqlite3.Database {
  if (path !== ':memory:') {
    ensureDir(dirname(path));
    // Leases, events and what agents did are this user's alone: the file is made 0600 before
    // SQLite opens it (an empty file is a valid database), and its -wal and -shm files take the
    // database file's mode. An existing file keeps its mode.
    if (!options.readonly && !existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  }
  let sqlite: BetterSqlite3.Database;
  try {
    sqlite = new BetterSqlite3(path, { readonly: options.readonly });
  } catch (err) {
    // The addon loads here, on the first open: built for another Node, it cannot.
    throw nativeAddonError(err) ?? err;
  }
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
  if (!options.readonly) {
    enableWal(sqlite, options.busyTimeoutMs);
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    migrate(sqlite);
  }
  return sqlite;
}

/**
 * Switch the file to WAL (persistent: once one process has done it, the rest only read the mode).
 * Switching upgrades a read lock to an exclusive one, and SQLite answers SQLITE_BUSY at once —
 * without waiting on busy_timeout — when that upgrade could deadlock with another process's
 * writer; so several processes opening a fresh file together retry here until the deadline.
 */
function enableWal(db: BetterSqlite3.Database, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return;
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      sleepSync(Math.min(200, 5 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()));
    }
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * `mkdir -p`, one level at a time: Node's recursive mkdirSync spins forever on some special file
 * systems (seen: a path under /proc hangs at 100 % CPU); this fails at once with the errno.
 * Folders it makes are 0700 (the state directory holds the store, reaper.log and recordings).
 */
function ensureDir(dir: string): void {
  let path = '';
  for (const part of resolve(dir).split(sep)) {
    path = path === sep || path === '' ? `${path || sep}${part}` : `${path}${sep}${part}`;
    if (part === '' || existsSync(path)) continue;
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`[vmhub] [store] cannot create ${dir} for the database (${(err as NodeJS.ErrnoException).code}): set VMHUB_DB to a writable path`, { cause: err });
    }
  }
}

