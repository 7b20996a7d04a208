/**
 * Every device command goes through here: argv only (agent text is never spliced into a shell
 * string; fixed scripts get it as positional parameters $1…), bounded in time and output,
 * cancelled with the call (the channel kills it on the device), and failures mapped to typed
 * errors. A Device is made per call over the lease's shared channel and carries that call's
 * signal.
 */
import type { AdapterContext, ExecResult, GuestChannel } from '@vmhub/core';
import { androidError, cancelled, clip, clipMiddle, missingTool, throwIfCancelled } from './errors.ts';
import type { AndroidOptions } from './options.ts';

export interface RunOptions {
  stdin?: Buffer | string;
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** What errors call the command. Default argv[0] ("device script" for sh). */
  label?: string;
  /** Exit codes that are not failures (the caller reads them). Default [0]. */
  okCodes?: number[];
}

export interface Device {
  channel: GuestChannel;
  run(argv: string[], options?: RunOptions): Promise<ExecResult>;
  /** A fixed sh script with positional args ($1…). */
  sh(script: string, args: string[], options?: RunOptions): Promise<ExecResult>;
}

export async function openDevice(ctx: AdapterContext, options: AndroidOptions): Promise<Device> {
  const channel = await ctx.channel();
  const { signal } = ctx;
  const run = async (argv: string[], o: RunOptions = {}): Promise<ExecResult> => {
    const what = o.label ?? (argv[0] === 'sh' ? 'device script' : argv[0]!);
    throwIfCancelled(signal, what);
    const res = await channel.exec(argv, {
      stdin: o.stdin,
      cwd: '/',
      timeoutMs: o.timeoutMs ?? options.command_timeout_ms,
      maxOutputBytes: o.maxOutputBytes ?? 4 * 1024 * 1024,
      signal,
    });
    if (res.timed_out && signal.aborted) throw cancelled(what);
    checkResult(argv, what, res, o.okCodes ?? [0]);
    return res;
  };
  return { channel, run, sh: (script, args, o) => run(['sh', '-c', script, 'vmhub-android', ...args], o) };
}

function checkResult(argv: string[], what: string, res: ExecResult, okCodes: number[]): void {
  const stderr = res.stderr.toString('utf8').trim();
  if (res.timed_out) throw androidError('TIMEOUT', `${what} did not finish in time on the device${stderr ? `: ${clip(stderr)}` : ''}`);
  if (res.exit_code !== null && okCodes.includes(res.exit_code)) return;
  const missing = missingToolName(argv, res, stderr);
  if (missing) throw missingTool(missing);
  const out = stderr || res.stdout.toString('utf8').trim();
  throw androidError('INTERNAL', `${what} failed on the device with exit code ${res.exit_code}${out ? `: ${clipMiddle(out)}` : ''}`);
}

function missingToolName(argv: string[], res: ExecResult, stderr: string): string | undefined {
  if (res.exit_code !== 127 && res.exit_code !== 126) return undefined;
  const inScript = /([A-Za-z0-9._+-]+): (?:command |inaccessible or )?not found/.exec(stderr);
  if (inScript) return inScript[1];
  if (argv[0] !== 'sh') return argv[0];
  return undefined;
}
