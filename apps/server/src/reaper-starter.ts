/**
 * Nobody has to remember the reaper. When a lease exists (created here, or found live at start)
 * and no reaper holds this store's reaper lock, the server starts one: `vmhub-reaper
 * --while-needed`, detached into its own process group, so it outlives this server (stdio
 * servers die with their client) and exits by itself once the store has no live lease and no
 * machine left. An operator's reaper service holds the same lock, and then none is started.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Store } from '@vmhub/store';
import { docPath } from './docs-path.ts';
import { log } from './log.ts';
import { stateDir } from './store-target.ts';

/** Do not start another within this long of the last start (it needs a moment to take the lock). */
const RESTART_GAP_MS = 15_000;

export interface ReaperStarter {
  /** Start a reaper unless one holds the lock (or this process just started one). Never throws. */
  ensure(reason: string): Promise<void>;
}

/**
 * `db` is VMHUB_DB as the server got it. A SQLite path goes on the reaper's command line (as
 * `--db`); a PostgreSQL URL carries a password, so it goes in the child's env (VMHUB_DB), never
 * in its argv where every `ps` shows it, and reaper.log goes to the default state directory.
 */
export function reaperStarter(store: Store, options: { enabled: boolean; db: string; configFile?: string | null; env?: NodeJS.ProcessEnv }): ReaperStarter {
  let lastStart = 0;
  let pending: Promise<void> | undefined;
  const ensure = async (reason: string): Promise<void> => {
    if (!options.enabled || store.path === ':memory:') return;
    if (Date.now() - lastStart < RESTART_GAP_MS) return;
    const holder = await store.lockHolder('reaper').catch(() => undefined);
    if (holder) return;
    lastStart = Date.now();
    const bin = reaperBin();
    if (!bin) { log('warn', `no reaper to start: @vmhub/reaper is not installed next to @vmhub/server; expired leases wait for a reaper you run (${docPath('reaper.md')})`); return; }
    const postgres = store.kind === 'postgres';
    const dir = await stateDir(store, options.env ?? process.env);
    if (postgres) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const logFile = join(dir, 'reaper.log');
    // The reaper's log names leases and machines: this user's alone, also when used as a library.
    const out = openSync(logFile, 'a', 0o600);
    const env = { ...(options.env ?? process.env), ...(options.configFile ? { VMHUB_CONFIG: options.configFile } : {}), ...(postgres ? { VMHUB_DB: options.db } : {}) };
    const args = postgres ? [bin, '--while-needed'] : [bin, '--while-needed', '--db', store.path];
    let child;
    try {
      child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out], env });
    } finally {
      closeSync(out); // the child has its own copy; ours would leak one descriptor per start
    }
    child.on('error', (err) => log('warn', 'starting the reaper failed', { error: err.message }));
    child.unref();
    log('info', 'reaper started for this store', { pid: child.pid, reason, log: logFile });
  };
  return {
    ensure(reason) {
      pending ??= ensure(reason).catch((err) => log('warn', 'could not check or start the reaper', { error: (err as Error).message })).finally(() => { pending = undefined; });
      return pending;
    },
  };
}

function reaperBin(): string | undefined {
  try {
    // The package's main entry is dist/index.js; its bin sits beside it.
    return join(dirname(createRequire(import.meta.url).resolve('@vmhub/reaper')), 'bin.js');
  } catch {
    return undefined;
  }
}
