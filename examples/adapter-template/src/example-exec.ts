/**
 * exec: the agent's argv through the lease's channel — argv, never a shell string built from it.
 * guest.run() passes the call's signal, so a cancelled call (or one past its deadline) is killed
 * in the guest. A non-zero exit is a result, not an error. `cwd` arrives absolute and normalised:
 * core resolved it against the guest home, so pass it on as it is.
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import type { Guest } from './example-session.ts';

export function exampleExec(guest: Guest, ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  return guest.run(ctx, input.argv, {
    timeoutMs: input.timeout_ms,
    maxOutputBytes: input.max_output_bytes,
    ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
    ...(input.stdin !== undefined ? { stdin: input.stdin } : {}),
  });
}
