/**
 * vm_exec as most adapters serve it: the agent's argv through the lease's channel with its cwd,
 * stdin, timeout and output cap, as the adapter's guest user and in its environment. The call's
 * signal goes along: a cancelled vm_exec is killed in the guest and resolves `timed_out`, like a
 * timeout. argv is not empty and `cwd` is absolute when given (core checked both).
 */
import type { AdapterContext, AdapterSession } from '../adapter.ts';
import type { ExecResult } from '../channel.ts';

/** What vm_exec hands the adapter (AdapterSession.exec's input). */
export type ExecInput = Parameters<NonNullable<AdapterSession['exec']>>[1];

export async function execAsAgent(ctx: AdapterContext, input: ExecInput, as: { user?: string; env?: Record<string, string> } = {}): Promise<ExecResult> {
  const channel = await ctx.channel();
  return channel.exec(input.argv, {
    cwd: input.cwd,
    stdin: input.stdin,
    timeoutMs: input.timeout_ms,
    maxOutputBytes: input.max_output_bytes,
    user: as.user,
    signal: ctx.signal,
    ...(as.env ? { env: as.env } : {}),
  });
}
