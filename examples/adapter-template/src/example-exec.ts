/**
 * exec: the agent's argv through the lease's channel — argv, never a shell string built from it.
 * Pass the call's signal, so a cancelled call (or one past its deadline) is killed in the guest.
 * A non-zero exit is a result, not an error, so this goes to the channel itself rather than
 * through guest.run(). `cwd` arrives absolute and normalised: core resolved it against the guest
 * home, so pass it on as it is.
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import type { ExampleRuntime } from './runtime.ts';

export async function exampleExec(rt: ExampleRuntime, ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  // Opened once per lease by core and closed by core when the lease ends: never close it here.
  const channel = await ctx.channel();
  return channel.exec(input.argv, {
    env: { DISPLAY: rt.options.display },
    signal: ctx.signal,
    timeoutMs: input.timeout_ms,
    maxOutputBytes: input.max_output_bytes,
    ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
    ...(input.stdin !== undefined ? { stdin: input.stdin } : {}),
  });
}
