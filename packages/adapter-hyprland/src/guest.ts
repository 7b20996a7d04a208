/**
 * Every guest command goes through here: argv only (agent input is never spliced into a shell
 * string; fixed scripts get it as positional parameters or on stdin), the session's Wayland
 * environment set explicitly (a channel's exec does not inherit the compositor's), bounded in
 * time and output, cancelled with the call (ctx.signal goes to every exec), and failures mapped
 * to typed errors.
 */
import type { AdapterContext, ExecResult, GuestChannel } from '@vmhub/core';
import { cancelled, hyprError, missingTool, throwIfCancelled } from './errors.ts';
import type { HyprlandOptions } from './options.ts';

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
  /** Runs although the call's signal has aborted (cleanup), bounded only by its timeout. */
  cleanup?: boolean;
}

export interface Guest {
  channel: GuestChannel;
  run(argv: string[], options?: RunOptions): Promise<ExecResult>;
  /** Run a fixed sh script with positional args ($1...). */
  sh(script: string, args: string[], options?: RunOptions): Promise<ExecResult>;
}

export const LOCALE_ENV: Readonly<Record<string, string>> = { LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };

export async function openGuest(ctx: AdapterContext, options: HyprlandOptions, env: Record<string, string>): Promise<Guest> {
  const channel = await ctx.channel();
  const { signal } = ctx;
  const run = async (argv: string[], o: RunOptions = {}): Promise<ExecResult> => {
    const what = o.label ?? commandName(argv);
    if (!o.cleanup) throwIfCancelled(signal, what);
    const res = await channel.exec(argv, {
      env: { ...LOCALE_ENV, ...env },
      stdin: o.stdin,
      user: options.user,
      timeoutMs: o.timeoutMs ?? options.command_timeout_ms,
      maxOutputBytes: o.maxOutputBytes ?? 4 * 1024 * 1024,
      ...(o.cleanup ? {} : { signal }),
    });
    if (res.timed_out && !o.cleanup && signal.aborted) throw cancelled(what);
    checkResult(argv, what, res, o.okCodes ?? [0]);
    return res;
  };
  return {
    channel,
    run,
    sh: (script, args, o) => run(['sh', '-c', needsPreamble(o?.needs) + script, 'vmhub-hyprland', ...args], o),
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

function checkResult(argv: string[], what: string, res: ExecResult, okCodes: number[]): void {
  const stderr = res.stderr.toString('utf8').trim();
  if (res.timed_out) throw hyprError('TIMEOUT', `${what} did not finish in time${stderr ? `: ${clip(stderr)}` : ''}`);
  if (res.exit_code !== null && okCodes.includes(res.exit_code)) return;
  const missing = missingToolName(argv, res, stderr);
  if (missing) throw missingTool(missing);
  if (/failed to connect to (?:a )?wayland|no compositor running|Unable to connect to|WAYLAND_DISPLAY/i.test(stderr)) {
    throw hyprError('INTERNAL', `${what} could not reach the compositor in the guest: is sway/Hyprland running for this user? (${clip(stderr)})`, {
      hint: 'The desktop is not up: wait with vm_lease_status or release and recreate the lease.',
    });
  }
  throw hyprError('INTERNAL', `${what} failed with exit code ${res.exit_code}${stderr ? `: ${clip(stderr)}` : ''}`);
}

function missingToolName(argv: string[], res: ExecResult, stderr: string): string | undefined {
  if (res.exit_code !== 127 && res.exit_code !== 126) return undefined;
  const inScript = /([A-Za-z0-9._+-]+): (?:command )?not found/.exec(stderr);
  if (inScript) return inScript[1];
  if (argv[0] !== 'sh' && res.exit_code === 127) return argv[0];
  return undefined;
}

export function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
