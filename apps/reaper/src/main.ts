/**
 * The CLI's life: parse, set up, then one pass (--once) or passes every interval until
 * SIGTERM/SIGINT (loop.ts). A signal lets the running pass finish (its claims are then released
 * or completed); a second signal exits at once — claims then lapse and the next pass resumes.
 * Exit code 2 is for bad configuration only: a store that is unreachable now (STORE_UNAVAILABLE)
 * is not one — a looping reaper waits for it, and --once reports it as a pass error (1).
 */
import { readFileSync } from 'node:fs';
import { VmhubError } from '@vmhub/core';
import { HELP, parseCli, type CliArgs } from './args.ts';
import { createLogger, parseLogLevel } from './log.ts';
import { LOCK, loop, storeUnavailable } from './loop.ts';
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
    const bad = badConfiguration(err);
    log('error', bad ? 'bad configuration: the reaper cannot start' : 'reaper failed to start', { error: (err as Error).message });
    return bad ? EXIT_CONFIG : EXIT_ERRORS;
  }
  const print = (summary: PassSummary) => process.stdout.write(`${args.json ? summaryJson(summary) : formatSummary(summary)}\n`);

  try {
    if (args.once) return await (s.coordination === 'leader' ? onceIfLeader(s, print) : once(s, print));
    await loop(s, print, args.whileNeeded);
    return EXIT_CLEAN;
  } finally {
    await s.close();
  }
}

async function once(s: Setup, print: (summary: PassSummary) => void): Promise<number> {
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

/** --once --coordination leader: a pass only if no other reaper leads (an unreachable store is an error, 1). */
async function onceIfLeader(s: Setup, print: (summary: PassSummary) => void): Promise<number> {
  try {
    await s.ctx.store.ready();
  } catch (err) {
    s.ctx.log('error', storeUnavailable(err) ? 'the store is unavailable: no pass' : 'the store cannot be opened: no pass', { db: s.ctx.store.path, error: (err as Error).message });
    return EXIT_ERRORS;
  }
  const leader = s.ctx.store.leadership(LOCK, s.ctx.settings.reaperId, 60_000);
  if (!(await leader.acquire())) {
    s.ctx.log('info', 'another reaper leads: no pass', { coordination: 'leader' });
    return EXIT_CLEAN;
  }
  try {
    return await once(s, print);
  } finally {
    await leader.release();
  }
}

/** Configuration the operator must fix (exit 2), as opposed to a failure that may pass by itself. */
export function badConfiguration(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException;
  if (storeUnavailable(err)) return false;
  if (e?.code === 'STORE_CONFIG' || e?.code === 'STORE_TOO_NEW' || e?.name === 'StoreVersionError') return true;
  return VmhubError.is(err) || err instanceof ConfigError || e?.code !== undefined || /sqlite|database/i.test(e?.message ?? '');
}

function packageVersion(): string {
  try {
    return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}
