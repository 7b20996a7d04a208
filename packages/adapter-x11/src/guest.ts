/**
 * Every guest command goes through here: argv only (agent input is never spliced into a shell
 * string; fixed scripts get it as positional parameters), the X environment set, bounded in time
 * and output, cancelled with the call, and failures mapped to typed errors.
 *
 * A Guest is made per call (`runtime.guest(ctx)`) over the lease's shared channel: it carries that
 * call's `ctx.signal` and passes it to every exec, so when the agent cancels the call or its
 * deadline passes the running command is killed in the guest and no further command starts.
 */
import type { AdapterContext, ExecResult, GuestChannel } from '@vmhub/core';
import { cancelled, killed, missingTool, throwIfCancelled, x11Error } from './errors.ts';
import type { X11Options } from './options.ts';

export interface RunOptions {
  stdin?: Buffer | string;
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** What errors call the command. Default argv[0] ("guest script" for sh). */
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

export function xEnv(options: X11Options): Record<string, string> {
  const env: Record<string, string> = { DISPLAY: options.display, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };
  if (options.xauthority) env.XAUTHORITY = options.xauthority;
  return env;
}

export async function openGuest(ctx: AdapterContext, options: X11Options): Promise<Guest> {
  const channel = await ctx.channel();
  const env = xEnv(options);
  const { signal } = ctx;
  const run = async (argv: string[], o: RunOptions = {}): Promise<ExecResult> => {
    const what = o.label ?? commandName(argv);
    if (!o.cleanup) throwIfCancelled(signal, what);
    const res = await channel.exec(argv, {
      env,
      stdin: o.stdin,
      user: options.user,
      timeoutMs: o.timeoutMs ?? options.command_timeout_ms,
      maxOutputBytes: o.maxOutputBytes ?? 1024 * 1024,
      ...(o.cleanup ? {} : { signal }),
    });
    // Killed because the call ended, not because the guest was slow.
    if (res.timed_out && !o.cleanup && signal.aborted) throw killed(cancelled(what));
    checkResult(argv, what, res, o.okCodes ?? [0], options.display);
    return res;
  };
  return {
    channel,
    run,
    sh: (script, args, o) => run(['sh', '-c', needsPreamble(o?.needs) + script, 'vmhub-x11', ...args], o),
  };
}

// Tool names are constants of this package (never agent input), so they may be inlined.
function needsPreamble(needs: readonly string[] | undefined): string {
  if (!needs?.length) return '';
  return `for t in ${needs.join(' ')}; do command -v "$t" >/dev/null 2>&1 || { echo "$t: not found" >&2; exit 127; }; done\n`;
}

function commandName(argv: string[]): string {
  return argv[0] === 'sh' ? 'guest script' : argv[0]!;
}

function checkResult(argv: string[], what: string, res: ExecResult, okCodes: number[], display: string): void {
  const stderr = res.stderr.toString('utf8').trim();
  if (res.timed_out) throw killed(x11Error('TIMEOUT', `${what} did not finish in time${stderr ? `: ${clip(stderr)}` : ''}`));
  if (res.exit_code !== null && okCodes.includes(res.exit_code)) return;
  const missing = missingToolName(argv, res, stderr);
  if (missing) throw missingTool(missing);
  if (/can't open display|cannot open display|unable to open display/i.test(stderr)) {
    throw x11Error('INTERNAL', `the X display ${display} is not answering in the guest: is Xvfb running on ${display}? (${clip(stderr)})`, {
      hint: 'The desktop is not up: wait with vm_lease_status or release and recreate the lease.',
    });
  }
  throw x11Error('INTERNAL', `${what} failed with exit code ${res.exit_code}${stderr ? `: ${clip(stderr)}` : ''}`);
}

function missingToolName(argv: string[], res: ExecResult, stderr: string): string | undefined {
  if (res.exit_code !== 127 && res.exit_code !== 126) return undefined;
  const inScript = /([A-Za-z0-9._+-]+): (?:command )?not found/.exec(stderr);
  if (inScript) return inScript[1];
  if (argv[0] !== 'sh' && res.exit_code === 127) return argv[0];
  if (/executable file not found|no such file or directory/i.test(stderr) && argv[0] !== 'sh') return argv[0];
  return undefined;
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
