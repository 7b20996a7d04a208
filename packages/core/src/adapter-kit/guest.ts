/**
 * The guest runner: every adapter command goes through here. Argv only (agent input is never
 * spliced into a shell string; fixed scripts get it as positional parameters), bounded in time and
 * output, cancelled with the call (its `ctx.signal` goes to every exec, so the channel kills the
 * command in the guest), and failures mapped to typed errors: a missing tool is
 * CAPABILITY_UNAVAILABLE (with the adapter's own fix), a command over its timeout or killed by a
 * cancelled call is TIMEOUT, any other exit code outside `okCodes` is INTERNAL with its stderr.
 *
 * A Guest is made per call (`openGuest(ctx, spec)`) over the lease's shared channel.
 */
import type { AdapterContext } from '../adapter.ts';
import type { ExecResult, GuestChannel } from '../channel.ts';
import type { VmhubError } from '../errors.ts';
import { clip, killed, type AdapterErrors } from './errors.ts';

export interface RunOptions {
  stdin?: Buffer | string;
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** What errors call the command. Default argv[0] (the spec's scriptLabel for sh). */
  label?: string;
  /** Exit codes that are not failures (the caller reads them). Default [0]. */
  okCodes?: number[];
  /** sh only: guest programs the script needs; a missing one fails as "<tool>: not found" (127). */
  needs?: readonly string[];
  /**
   * Undo what a cancelled call left half done (e.g. restore the clipboard): runs although the
   * call's signal has aborted, bounded only by its timeout. Keep such commands short.
   */
  cleanup?: boolean;
  /**
   * Reaching timeoutMs is an answer, not a failure: the result (timed_out, the output read until
   * the kill) is returned for the caller to use, e.g. a walk that streams what it found.
   */
  partialOnTimeout?: boolean;
}

export interface Guest {
  channel: GuestChannel;
  /**
   * Run and return the result; throws on a missing tool, a timeout, an exit code outside okCodes,
   * or (TIMEOUT) when the call was cancelled — before the command or while it ran.
   */
  run(argv: string[], options?: RunOptions): Promise<ExecResult>;
  /** Run a fixed sh script with positional args ($1...). */
  sh(script: string, args: string[], options?: RunOptions): Promise<ExecResult>;
}

/** How one adapter runs its commands: fixed per session (or per call where env is discovered). */
export interface GuestSpec {
  errors: AdapterErrors;
  /** The error for a tool the guest lacks. Default: `errors.missingTool` (add it to the golden image). */
  missingTool?(tool: string): VmhubError;
  /** `$0` of the adapter's sh scripts, e.g. "vmhub-x11". */
  scriptName: string;
  /** What errors call an sh script without a label. Default "guest script". */
  scriptLabel?: string;
  /** Where, in messages: "" (default) or e.g. " on the device". */
  where?: string;
  /** Bound of one command unless the caller says otherwise. */
  timeoutMs: number;
  /** Output kept of one command unless the caller says otherwise. */
  maxOutputBytes: number;
  env?: Record<string, string>;
  user?: string;
  cwd?: string;
  /** A more telling error for a failure (the display is down, the compositor unreachable), or undefined. */
  diagnose?(what: string, stderr: string, res: ExecResult): VmhubError | undefined;
  /** The output a failure message quotes. Default the stderr, clipped to 300 characters. */
  failureOutput?(stderr: string, res: ExecResult): string;
  /** The tool a failed command lacks, or undefined. Default: `missingToolName`. */
  toolNotFound?(argv: string[], res: ExecResult, stderr: string): string | undefined;
}

export async function openGuest(ctx: AdapterContext, spec: GuestSpec): Promise<Guest> {
  const channel = await ctx.channel();
  const { signal } = ctx;
  const { errors } = spec;
  const run = async (argv: string[], o: RunOptions = {}): Promise<ExecResult> => {
    const what = o.label ?? (argv[0] === 'sh' ? spec.scriptLabel ?? 'guest script' : argv[0]!);
    if (!o.cleanup) errors.throwIfCancelled(signal, what);
    const res = await channel.exec(argv, {
      ...(spec.env ? { env: spec.env } : {}),
      stdin: o.stdin,
      ...(spec.user !== undefined ? { user: spec.user } : {}),
      ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
      timeoutMs: o.timeoutMs ?? spec.timeoutMs,
      maxOutputBytes: o.maxOutputBytes ?? spec.maxOutputBytes,
      ...(o.cleanup ? {} : { signal }),
    });
    // Killed because the call ended, not because the guest was slow.
    if (res.timed_out && !o.cleanup && signal.aborted) throw killed(errors.cancelled(what));
    if (res.timed_out && o.partialOnTimeout) return res;
    checkResult(spec, argv, what, res, o.okCodes ?? [0]);
    return res;
  };
  return {
    channel,
    run,
    sh: (script, args, o) => run(['sh', '-c', needsPreamble(o?.needs) + script, spec.scriptName, ...args], o),
  };
}

// Tool names are constants of the adapter (never agent input), so they may be inlined.
function needsPreamble(needs: readonly string[] | undefined): string {
  if (!needs?.length) return '';
  return `for t in ${needs.join(' ')}; do command -v "$t" >/dev/null 2>&1 || { echo "$t: not found" >&2; exit 127; }; done\n`;
}

function checkResult(spec: GuestSpec, argv: string[], what: string, res: ExecResult, okCodes: number[]): void {
  const stderr = res.stderr.toString('utf8').trim();
  const where = spec.where ?? '';
  if (res.timed_out) throw killed(spec.errors.error('TIMEOUT', `${what} did not finish in time${where}${stderr ? `: ${clip(stderr)}` : ''}`));
  if (res.exit_code !== null && okCodes.includes(res.exit_code)) return;
  const missing = (spec.toolNotFound ?? missingToolName)(argv, res, stderr);
  if (missing) throw (spec.missingTool ?? spec.errors.missingTool)(missing);
  const diagnosed = spec.diagnose?.(what, stderr, res);
  if (diagnosed) throw diagnosed;
  const out = spec.failureOutput ? spec.failureOutput(stderr, res) : clip(stderr);
  throw spec.errors.error('INTERNAL', `${what} failed${where} with exit code ${res.exit_code}${out ? `: ${out}` : ''}`);
}

/**
 * The tool a command lacks: exit 127/126 with a shell's "<tool>: not found" (POSIX sh, dash,
 * busybox, Android's mksh "inaccessible or not found"), or argv[0] itself when it was not found.
 */
export function missingToolName(argv: string[], res: ExecResult, stderr: string): string | undefined {
  if (res.exit_code !== 127 && res.exit_code !== 126) return undefined;
  const inScript = /([A-Za-z0-9._+-]+): (?:command |inaccessible or )?not found/.exec(stderr);
  if (inScript) return inScript[1];
  if (argv[0] !== 'sh' && res.exit_code === 127) return argv[0];
  if (/executable file not found|no such file or directory/i.test(stderr) && argv[0] !== 'sh') return argv[0];
  return undefined;
}
