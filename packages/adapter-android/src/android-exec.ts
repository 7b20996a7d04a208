/**
 * Exec: argv through the channel with the agent's cwd, stdin, timeout and output cap; the call's
 * signal goes along, so a cancelled vm_exec is killed on the device.
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import type { AndroidRuntime } from './runtime.ts';

export async function exec(_rt: AndroidRuntime, ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  const channel = await ctx.channel();
  return channel.exec(input.argv, { cwd: input.cwd, stdin: input.stdin, timeoutMs: input.timeout_ms, maxOutputBytes: input.max_output_bytes, signal: ctx.signal });
}
