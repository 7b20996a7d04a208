/**
 * Exec: the kit's vm_exec (argv through the channel with the agent's cwd, stdin, timeout and
 * output cap, killed in the guest when the call is cancelled) as the session's user, with the
 * display in the environment: programs started by vm_exec land on the desktop, like the agent
 * expects.
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import { execAsAgent, type ExecInput } from '@vmhub/core/adapter-kit';
import type { X11Runtime } from './runtime.ts';

export function exec(rt: X11Runtime, ctx: AdapterContext, input: ExecInput): Promise<ExecResult> {
  return execAsAgent(ctx, input, {
    user: rt.options.user,
    env: { DISPLAY: rt.options.display, ...(rt.options.xauthority ? { XAUTHORITY: rt.options.xauthority } : {}) },
  });
}
