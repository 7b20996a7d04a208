/**
 * A cancelled call (ctx.signal aborted: the agent cancelled it or its deadline passed) stops at the
 * next step and says so as TIMEOUT. The router has already answered the client by then; this only
 * ends the call's remaining work.
 */
import { VmhubError } from '@vmhub/core';
import { SOURCE } from './guest.ts';

export function cancelled(what: string, outcome = 'stopped'): VmhubError {
  return new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] ${what} ${outcome}: the call was cancelled or ran out of time`, {
    source: SOURCE,
    hint: 'The call was cancelled or its deadline passed, so the rest of it was not done: look at the screen (vm_screenshot) before retrying.',
  });
}

/** Before a step: a call that is already over starts nothing more. */
export function throwIfCancelled(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw cancelled(what, 'not started');
}
