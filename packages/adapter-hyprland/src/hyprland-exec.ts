/**
 * Exec: the kit's vm_exec (argv through the channel with the agent's cwd, stdin, timeout and
 * output cap, killed in the guest when the call is cancelled) as the session's user, with the
 * session's Wayland environment, so programs it starts land on the desktop.
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import { execAsAgent, type ExecInput } from '@vmhub/core/adapter-kit';
import { LOCALE_ENV } from './guest.ts';
import type { HyprRuntime } from './runtime.ts';

export async function exec(rt: HyprRuntime, ctx: AdapterContext, input: ExecInput): Promise<ExecResult> {
  // A desktop that is not up must not make vm_exec fail: exec then runs without its env.
  const env = await rt.desktop(ctx).then((d) => d.env, () => ({}));
  return execAsAgent(ctx, input, { user: rt.options.user, env: { ...LOCALE_ENV, ...env } });
}
