/**
 * exec: argv through the lease's GuestChannel — never a shell string built from agent input. The
 * call's signal goes along, so a cancelled call (or one past its deadline) is killed in the guest.
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import type { ExampleOptions } from './example-options.ts';

export async function exampleExec(
  options: ExampleOptions,
  ctx: AdapterContext,
  input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number },
): Promise<ExecResult> {
  const channel = await ctx.channel();
  return channel.exec(input.argv, {
    timeoutMs: input.timeout_ms,
    maxOutputBytes: Math.min(input.max_output_bytes, options.max_output_bytes),
    env: options.env,
    signal: ctx.signal,
    ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
    ...(input.stdin !== undefined ? { stdin: input.stdin } : {}),
  });
}
