import { homedir } from 'node:os';
import { join } from 'node:path';

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
