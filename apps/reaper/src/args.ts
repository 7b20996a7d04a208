/**
 * Command line. Flags win over env, env over the config file (which core's loadConfig reads).
 */
import { parseArgs } from 'node:util';

export interface CliArgs {
  help: boolean;
  version: boolean;
  once: boolean;
  json: boolean;
  /** Loop only while the store has work (live leases or machines not destroyed); as the server starts it. */
  whileNeeded: boolean;
  interval?: number;
  db?: string;
  config?: string;
  claimSeconds?: number;
  concurrency?: number;
  /** How several reapers of one store share the work (see HELP). */
  coordination?: Coordination;
}

/** `claims`: every reaper runs passes, row claims split the work. `leader`: only the holder of the store's leadership runs passes (still under claims). */
export type Coordination = 'claims' | 'leader';
export const COORDINATIONS: readonly Coordination[] = ['claims', 'leader'];

export class UsageError extends Error {}

export function parseCli(argv: readonly string[]): CliArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        once: { type: 'boolean' },
        json: { type: 'boolean' },
        'while-needed': { type: 'boolean' },
        interval: { type: 'string' },
        db: { type: 'string' },
        config: { type: 'string' },
        'claim-seconds': { type: 'string' },
        concurrency: { type: 'string' },
        coordination: { type: 'string' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const args: CliArgs = { help: !!values.help, version: !!values.version, once: !!values.once, json: !!values.json, whileNeeded: !!values['while-needed'] };
  if (values.interval !== undefined) args.interval = positive('--interval', values.interval as string);
  if (values['claim-seconds'] !== undefined) args.claimSeconds = positive('--claim-seconds', values['claim-seconds'] as string);
  if (values.concurrency !== undefined) args.concurrency = positive('--concurrency', values.concurrency as string);
  if (values.db !== undefined) args.db = values.db as string;
  if (values.coordination !== undefined) args.coordination = coordination('--coordination', values.coordination as string);
  if (values.config !== undefined) args.config = values.config as string;
  if (args.once && args.whileNeeded) throw new UsageError('--once and --while-needed exclude each other: --while-needed loops until the store has no work');
  if (args.once && args.interval !== undefined) throw new UsageError('--once and --interval exclude each other: --once runs one pass (for a timer), --interval loops');
  return args;
}

export function coordination(flag: string, raw: string): Coordination {
  if (!(COORDINATIONS as readonly string[]).includes(raw)) throw new UsageError(`${flag} must be one of ${COORDINATIONS.join(', ')}, got "${raw}"`);
  return raw as Coordination;
}

function positive(flag: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive number of seconds/items, got "${raw}"`);
  return n;
}

export const HELP = `vmhub-reaper — destroys the machines of expired, stuck and orphaned vmhub leases

Usage:
  vmhub-reaper --once [options]          one pass, then exit (systemd timer, cron)
  vmhub-reaper [--interval <s>] [options] loop: a pass every <s> seconds (default: config reaper.interval_seconds, 30)

Options:
  --once                 run one pass and exit with 0 (clean), 1 (some errors), 2 (bad configuration/usage)
  --interval <seconds>   seconds between pass starts in loop mode (fractions allowed)
  --while-needed         loop only while the store has live leases or machines left, then exit; exit at
                         once if another reaper holds the store's reaper lock (how vmhub-server starts it)
  --db <path|url>        the store: a SQLite file or postgres://user:password@host:5432/db (default: VMHUB_DB,
                         config "db", then the user's state dir); for PostgreSQL prefer VMHUB_DB in the
                         environment: a password on the command line is visible to every ps
  --config <file>        JSON config file (default: VMHUB_CONFIG, then ~/.config/vmhub/config.json)
  --json                 JSON logs on stderr and a JSON summary line per pass on stdout
  --claim-seconds <s>    how long a teardown claim lasts before another reaper may take over (default 60,
                         env VMHUB_REAPER_CLAIM_SECONDS); renewed while the teardown runs
  --concurrency <n>      teardowns at once (default 4)
  --coordination <mode>  several reapers on one store: claims (default: all run passes, row claims split
                         the work) or leader (only the holder of the store's leadership — a PostgreSQL
                         session advisory lock, on SQLite the lapsing "reaper" lock — runs passes);
                         env VMHUB_REAPER_COORDINATION
  --version, -h/--help

Environment (shared with vmhub-server): VMHUB_CONFIG, VMHUB_INSTANCE, VMHUB_DB, VMHUB_PLUGINS,
VMHUB_REAPER_INTERVAL_SECONDS, VMHUB_ORPHAN_GRACE_SECONDS, VMHUB_PROVISION_TIMEOUT_SECONDS,
plus each provider's own variables (PVE_HOST, DOCKER_HOST, ...). VMHUB_LOG_LEVEL=debug|info|warn|error.

Output: one summary line per pass on stdout, structured logs on stderr.
  reaper pass: expired=N reaped=N failed=N released=N orphans=N destroyed=N snapshots=N skipped=N (reasons) errors=N duration_ms=N
`;
