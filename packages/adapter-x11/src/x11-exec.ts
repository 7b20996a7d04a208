/**
 * Exec: argv through the channel with the agent's cwd, stdin, timeout and output cap. The call's
 * signal goes along: a cancelled vm_exec is killed in the guest and resolves `timed_out`, like a
 * timeout. argv is not empty and `cwd` is absolute when given (core checked both).
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';

export async function exec(rt: X11Runtime, ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  const channel = await ctx.channel();
  return channel.exec(input.argv, {
    cwd: input.cwd,
    stdin: input.stdin,
    timeoutMs: input.timeout_ms,
    maxOutputBytes: input.max_output_bytes,
    user: rt.options.user,
    signal: ctx.signal,
    // Programs started by vm_exec land on the desktop, like the agent expects.
    env: { DISPLAY: rt.options.display, ...(rt.options.xauthority ? { XAUTHORITY: rt.options.xauthority } : {}) },
  });
}
