/**
 * The server's side of VMHUB_DB: refuse at start a value the store cannot use (`mysql://…`,
 * with the store's own message), and say where the server keeps its own files (reaper.log,
 * recordings) — beside a SQLite file, or in the default state directory for a PostgreSQL store,
 * which has no file to sit beside. The store module is loaded only when a URL needs it.
 */
import { dirname } from 'node:path';
import { VmhubError } from '@vmhub/core';
import type { Store } from '@vmhub/store';

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** Does this VMHUB_DB value name a URL (postgres:// or a scheme the store refuses) rather than a file? */
export function isStoreUrl(db: string): boolean {
  return SCHEME.test(db);
}

/** Throws a config error (exit 2, one line) when the store would refuse this VMHUB_DB value. */
export async function checkStoreTarget(db: string | undefined): Promise<void> {
  if (db === undefined || !isStoreUrl(db)) return;
  const { parseStoreTarget } = await import('@vmhub/store');
  try {
    parseStoreTarget(db);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'STORE_CONFIG') throw err;
    throw new VmhubError('INVALID_REQUEST', (err as Error).message, { source: 'config', hint: 'Set VMHUB_DB (or "db" in the config) to a SQLite file path or a postgres:// URL.' });
  }
}

/** Where this server's own files go: beside a SQLite store; for PostgreSQL, the default state directory. */
export async function stateDir(store: Pick<Store, 'kind' | 'path'>, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { stateDirOf } = await import('@vmhub/store');
  // store.path masks a PostgreSQL URL's password: any URL gives the same directory.
  return stateDirOf(store.kind === 'sqlite' ? store.path : 'postgres://', env) ?? dirname(store.path);
}
