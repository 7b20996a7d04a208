/**
 * exec through the guest channel: argv (no shell), optional cwd and stdin, bounded. The call's
 * signal goes along: a cancelled vm_exec is killed in the guest and resolves `timed_out`.
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import { guestChannel } from './guest.ts';

/** `cwd`, when given, is absolute and normalised (core resolved it). */
export async function exec(ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  const ch = await guestChannel(ctx);
  return ch.exec(input.argv, {
    ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    ...(input.stdin === undefined ? {} : { stdin: input.stdin }),
    timeoutMs: input.timeout_ms,
    maxOutputBytes: input.max_output_bytes,
    signal: ctx.signal,
  });
}
