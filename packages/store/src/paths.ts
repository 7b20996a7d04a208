import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Where the database lives unless VMHUB_DB says otherwise: `$XDG_STATE_HOME/vmhub/vmhub.db`,
 * else `~/.local/state/vmhub/vmhub.db` (Linux) or `~/Library/Application Support/vmhub/vmhub.db` (macOS).
 */
export function defaultStatePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.VMHUB_DB) return env.VMHUB_DB;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'vmhub', 'vmhub.db');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'vmhub', 'vmhub.db');
  return join(homedir(), '.local', 'state', 'vmhub', 'vmhub.db');
}

/**
 * The state directory of the vmhub instance whose store is `db` (VMHUB_DB as given): where the
 * server, the reaper and the providers they build keep their own files (reaper.log, recordings,
 * `provider-<id>/keys`). Beside a SQLite file; for a URL (postgres://…), which has no place on
 * disk, the default state directory; undefined for an in-memory store (nothing is kept on disk).
 * Every process of one instance (server, reaper, `vmhub-server leases`) gets the same answer.
 */
export function stateDirOf(db: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (db === ':memory:') return undefined;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(db)) return dirname(db);
  // defaultStatePath answers VMHUB_DB first: here that is the URL, not a place on disk.
  const { VMHUB_DB: _url, ...rest } = env;
  return dirname(defaultStatePath(rest));
}
