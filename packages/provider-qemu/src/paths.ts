/**
 * Host directories the provider uses. Resolved from the environment only (no I/O), so the
 * default template can name its golden path at import time.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_STATE_HOME/vmhub/qemu`, else `~/.local/state/vmhub/qemu`: one directory per lease. */
export function defaultStateDir(): string {
  const base = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'vmhub', 'qemu');
}

/** `$XDG_CACHE_HOME/vmhub/golden`, else `~/.cache/vmhub/golden`: built golden images. */
export function defaultGoldenDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'vmhub', 'golden');
}
