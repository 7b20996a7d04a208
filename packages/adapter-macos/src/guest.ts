/**
 * The adapter's own guest commands (the in-guest tools, mkdir, tar) over the lease's SSH link:
 * argv only, the adapter's tool PATH, bounded, cancelled with the call, and failures mapped to
 * typed errors that say which TCC grant or tool is missing.
 */
import type { Readable } from 'node:stream';
import type { AdapterContext, ExecResult } from '@vmhub/core';
import { cancelled, DOCS, macError, throwIfCancelled } from './errors.ts';
import type { MacosOptions } from './options.ts';
import { sshExec } from './ssh-exec.ts';
import type { SshLink } from './ssh-link.ts';

export interface RunOptions {
  stdin?: Buffer | string | Readable;
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** What errors call the command. Default argv[0]. */
  label?: string;
}

/** TCC refusals as osascript / System Events print them. */
const ACCESSIBILITY = /not allowed assistive access|-1719|-25211|is not allowed to send keystrokes/i;
const AUTOMATION = /not authori[sz]ed to send apple events|-1743/i;

export async function run(link: SshLink, options: MacosOptions, ctx: AdapterContext, argv: string[], o: RunOptions = {}): Promise<ExecResult> {
  const what = o.label ?? argv[0]!;
  throwIfCancelled(ctx.signal, what);
  const res = await sshExec(link, argv, {
    stdin: o.stdin,
    path: options.tool_path,
    timeoutMs: o.timeoutMs ?? options.command_timeout_ms,
    maxOutputBytes: o.maxOutputBytes ?? 1024 * 1024,
    signal: ctx.signal,
  });
  if (res.timed_out) throw ctx.signal.aborted ? cancelled(what) : macError('TIMEOUT', `${what} did not finish in ${o.timeoutMs ?? options.command_timeout_ms} ms in the guest`);
  if (res.exit_code === 0) return res;
  const stderr = res.stderr.toString('utf8').trim();
  if (res.exit_code === 127) {
    throw macError('CAPABILITY_UNAVAILABLE', `${argv[0]} not found in the guest (PATH ${options.tool_path}): ${argv[0] === 'cliclick' ? 'brew install cliclick' : 'it ships with macOS; check tool_path'} (${DOCS})`, { details: { tool: argv[0] } });
  }
  if (ACCESSIBILITY.test(stderr)) {
    throw macError('CAPABILITY_UNAVAILABLE', `${what} was refused by macOS privacy controls (TCC): grant Accessibility to the SSH chain (sshd-keygen-wrapper) in System Settings → Privacy & Security → Accessibility (${DOCS}): ${clip(stderr)}`);
  }
  if (AUTOMATION.test(stderr)) {
    throw macError('CAPABILITY_UNAVAILABLE', `${what} was refused by macOS privacy controls (TCC): allow the SSH chain to control System Events under Privacy & Security → Automation (${DOCS}): ${clip(stderr)}`);
  }
  throw macError('INTERNAL', `${what} failed in the guest with exit code ${res.exit_code}${stderr ? `: ${clip(stderr)}` : ''}`);
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
