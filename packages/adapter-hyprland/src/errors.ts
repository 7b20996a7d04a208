/** The adapter's error helpers: every message names the component and says what to do. */
import { VmhubError, type ErrorCode, type VmhubErrorOptions } from '@vmhub/core';

export const SOURCE = 'adapter-hyprland';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/hyprland.md';

export function hyprError(code: ErrorCode, message: string, options: Omit<VmhubErrorOptions, 'source'> = {}): VmhubError {
  return new VmhubError(code, `[vmhub] [${SOURCE}] ${message}`, { ...options, source: SOURCE });
}

export function missingTool(tool: string, cause?: unknown): VmhubError {
  return hyprError('CAPABILITY_UNAVAILABLE', `${tool} not found in the guest: add it to the golden image (${DOCS})`, {
    hint: `This VM lacks ${tool}; the operator must add it to the golden image. Other capabilities may still work (vm_capabilities).`,
    details: { tool },
    cause,
  });
}

// Errors raised because the call's signal aborted, so a memoised lookup shared by several calls
// retries when another call's cancellation, not its own, ended it.
const cancellations = new WeakSet<VmhubError>();

export function cancelled(what: string, outcome = 'stopped'): VmhubError {
  const err = hyprError('TIMEOUT', `${what} ${outcome}: the call was cancelled or ran out of time`, {
    hint: 'The call was cancelled or its deadline passed, so the rest of it was not done: look at the screen (vm_screenshot) before retrying.',
  });
  cancellations.add(err);
  return err;
}

export function isCancellation(err: unknown): boolean {
  return err instanceof VmhubError && cancellations.has(err);
}

/** Before a step: a call that is already over starts nothing more in the guest. */
export function throwIfCancelled(signal: AbortSignal, what: string): void {
  if (signal.aborted) throw cancelled(what, 'not started');
}
