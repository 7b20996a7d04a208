/**
 * Loop mode: a pass every interval until SIGTERM/SIGINT (or, with --while-needed, until the
 * store has no work). A signal lets the running pass finish; a second one exits at once.
 *
 * The store may be a PostgreSQL that goes away: a pass whose store is unavailable
 * (STORE_UNAVAILABLE) is skipped with a warning and tried again next interval — the reaper never
 * exits for it, and resumes by itself when the database answers. With `--coordination leader`
 * only the holder of the store's leadership runs passes; the others stand by and take over when
 * it goes (its teardown claims lapse as in claims mode).
 */
import { existsSync } from 'node:fs';
import { runPass } from './pass.ts';
import type { Setup } from './setup.ts';
import type { PassSummary } from './summary.ts';
import { messageOf } from './timeout.ts';

/** The store lock a looping reaper holds, renewed every pass, so servers see that one runs. */
export const LOCK = 'reaper';

export function storeUnavailable(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === 'STORE_UNAVAILABLE';
}

export async function loop(s: Setup, print: (summary: PassSummary) => void, whileNeeded: boolean): Promise<void> {
  const { store, settings, log } = s.ctx;
  const me = settings.reaperId;
  // Held for three intervals: a reaper that died is replaced within that much (plus a margin).
  const lockMs = s.intervalMs * 3 + 15_000;
  const leader = s.coordination === 'leader' ? store.leadership(LOCK, me, lockMs) : undefined;
  // Only a SQLite file can vanish under us (a test's or a user's `rm`): then there is nothing to watch.
  const fileGone = () => store.kind === 'sqlite' && store.path !== ':memory:' && !existsSync(store.path);
  let stopping = false;
  let wake: () => void = () => undefined;
  const onSignal = (signal: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    log('info', 'stopping after the current pass', { signal });
    wake();
  };
  const onTerm = () => onSignal('SIGTERM');
  const onInt = () => onSignal('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  log('info', 'loop started', { interval_ms: s.intervalMs, while_needed: whileNeeded, coordination: s.coordination });
  let down = 0;
  let leading: boolean | undefined;
  try {
    while (!stopping) {
      const started = Date.now();
      let holding = false;
      let reachable = true;
      try {
        holding = await store.acquireLock(LOCK, me, Date.now() + lockMs);
      } catch (err) {
        if (storeUnavailable(err)) {
          reachable = false;
          down++;
          log('warn', 'the store is unavailable: pass skipped, retried next interval', { db: store.path, failed_passes: down, error: messageOf(err) });
        }
      }
      if (reachable && down > 0) {
        log('info', 'the store answers again: passes resume', { db: store.path, skipped_passes: down });
        down = 0;
      }
      if (reachable && !holding && whileNeeded) {
        log('info', 'another reaper holds this store\'s reaper lock: exiting', { holder: (await store.lockHolder(LOCK).catch(() => undefined))?.holder });
        break;
      }
      const leads = reachable && (leader ? await leader.acquire() : true);
      if (leader && reachable && leads !== leading) {
        log('info', leads ? 'leading: this reaper runs the passes' : 'another reaper leads: standing by', { coordination: 'leader' });
        leading = leads;
      }
      if (reachable && leads) {
        try {
          print(await runPass(s.ctx));
        } catch (err) {
          // runPass contains its own failures; this is the last guard that keeps the loop alive.
          log('error', 'reaper pass failed unexpectedly; next pass as scheduled', { error: (err as Error).stack ?? String(err) });
        }
      }
      if (whileNeeded && reachable && (fileGone() || !(await store.hasWork().catch(() => true)))) {
        log('info', fileGone() ? 'the store file is gone: exiting' : 'no live leases and no machines left: exiting');
        break;
      }
      const wait = Math.max(0, s.intervalMs - (Date.now() - started));
      if (stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        wake = () => { clearTimeout(timer); resolve(); };
      });
    }
  } finally {
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
    await leader?.release();
    if (!fileGone()) await store.releaseLock(LOCK, me).catch(() => undefined);
  }
}
