/**
 * Exec: argv through the channel with the agent's cwd, stdin, timeout and output cap, and the
 * session's Wayland environment, so programs it starts land on the desktop. The call's signal
 * goes along: a cancelled vm_exec is killed in the guest. argv is not empty and cwd absolute
 * (core checked both).
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import { LOCALE_ENV } from './guest.ts';
import type { HyprRuntime } from './runtime.ts';

export async function exec(rt: HyprRuntime, ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  const channel = await ctx.channel();
  // A desktop that is not up must not make vm_exec fail: exec then runs without its env.
  const env = await rt.desktop(ctx).then((d) => d.env, () => ({}));
  return channel.exec(input.argv, {
    cwd: input.cwd,
    stdin: input.stdin,
    timeoutMs: input.timeout_ms,
    maxOutputBytes: input.max_output_bytes,
    user: rt.options.user,
    signal: ctx.signal,
    env: { ...LOCALE_ENV, ...env },
  });
}
