/**
 * The CLI's life: parse, set up, then one pass (--once) or passes every interval until
 * SIGTERM/SIGINT. A signal lets the running pass finish (its claims are then released or
 * completed); a second signal exits at once — claims then lapse and the next pass resumes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { VmhubError } from '@vmhub/core';
import { HELP, parseCli, type CliArgs } from './args.ts';
import { createLogger, parseLogLevel } from './log.ts';
import { runPass } from './pass.ts';
import { ConfigError, newReaperId, setup, type Setup } from './setup.ts';
import { formatSummary, summaryJson, type PassSummary } from './summary.ts';

export const EXIT_CLEAN = 0;
export const EXIT_ERRORS = 1;
export const EXIT_CONFIG = 2;

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCli(argv);
  } catch (err) {
    process.stderr.write(`vmhub-reaper: ${(err as Error).message}\n\n${HELP}`);
    return EXIT_CONFIG;
  }
  if (args.help) { process.stdout.write(HELP); return EXIT_CLEAN; }
  if (args.version) { process.stdout.write(`${packageVersion()}\n`); return EXIT_CLEAN; }

  const reaperId = newReaperId();
  const log = createLogger({ json: args.json, level: parseLogLevel(env.VMHUB_LOG_LEVEL), base: { reaper_id: reaperId } });
  let s: Setup;
  try {
    s = await setup(args, env, log, reaperId);
  } catch (err) {
    const bad = VmhubError.is(err) || err instanceof ConfigError || (err as Error).name === 'StoreVersionError' || (err as NodeJS.ErrnoException).code !== undefined || /sqlite|database/i.test((err as Error).message);
    log('error', bad ? 'bad configuration: the reaper cannot start' : 'reaper failed to start', { error: (err as Error).message });
    return EXIT_CONFIG;
  }
  const print = (summary: PassSummary) => process.stdout.write(`${args.json ? summaryJson(summary) : formatSummary(summary)}\n`);

  try {
    if (args.once) {
      let summary: PassSummary;
      try {
        summary = await runPass(s.ctx);
      } catch (err) {
        // runPass contains its own failures; an escape is reported like any other error.
        s.ctx.log('error', 'reaper pass failed unexpectedly', { error: (err as Error).stack ?? String(err) });
        return EXIT_ERRORS;
      }
      print(summary);
      return summary.errors > 0 ? EXIT_ERRORS : EXIT_CLEAN;
    }
    await loop(s, print, args.whileNeeded);
    return EXIT_CLEAN;
  } finally {
    await s.close();
  }
}

/** The store lock a looping reaper holds, renewed every pass, so servers see that one runs. */
const LOCK = 'reaper';

async function loop(s: Setup, print: (summary: PassSummary) => void, whileNeeded: boolean): Promise<void> {
  const { store, settings } = s.ctx;
  const me = settings.reaperId;
  // Held for three intervals: a reaper that died is replaced within that much (plus a margin).
  const lockUntil = () => Date.now() + s.intervalMs * 3 + 15_000;
  let stopping = false;
  let wake: () => void = () => undefined;
  const onSignal = (signal: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    s.ctx.log('info', 'stopping after the current pass', { signal });
    wake();
  };
  const onTerm = () => onSignal('SIGTERM');
  const onInt = () => onSignal('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  s.ctx.log('info', 'loop started', { interval_ms: s.intervalMs, while_needed: whileNeeded });
  try {
    while (!stopping) {
      const started = Date.now();
      const holding = await store.acquireLock(LOCK, me, lockUntil()).catch(() => false);
      if (!holding && whileNeeded) {
        s.ctx.log('info', 'another reaper holds this store\'s reaper lock: exiting', { holder: (await store.lockHolder(LOCK).catch(() => undefined))?.holder });
        break;
      }
      try {
        print(await runPass(s.ctx));
      } catch (err) {
        // runPass contains its own failures; this is the last guard that keeps the loop alive.
        s.ctx.log('error', 'reaper pass failed unexpectedly; next pass as scheduled', { error: (err as Error).stack ?? String(err) });
      }
      if (whileNeeded && (!existsSync(store.path) || !(await store.hasWork().catch(() => true)))) {
        s.ctx.log('info', existsSync(store.path) ? 'no live leases and no machines left: exiting' : 'the store file is gone: exiting');
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
    if (existsSync(store.path)) await store.releaseLock(LOCK, me).catch(() => undefined);
  }
}

function packageVersion(): string {
  try {
    return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}
