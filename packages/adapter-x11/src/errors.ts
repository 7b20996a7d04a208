/** The adapter's error helpers: every message names the component and says what to do. */
import { VmhubError, type ErrorCode, type VmhubErrorOptions } from '@vmhub/core';

export const SOURCE = 'adapter-x11';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/x11.md';

export function x11Error(code: ErrorCode, message: string, options: Omit<VmhubErrorOptions, 'source'> = {}): VmhubError {
  return new VmhubError(code, `[vmhub] [${SOURCE}] ${message}`, { ...options, source: SOURCE });
}

export function missingTool(tool: string, cause?: unknown): VmhubError {
  return x11Error('CAPABILITY_UNAVAILABLE', `${tool} not found in the guest: add it to the golden image (${DOCS})`, {
    hint: `This VM lacks ${tool}; the operator must add it to the golden image. Other capabilities may still work (vm_capabilities).`,
    details: { tool },
    cause,
  });
}

// Errors raised because the call's signal aborted (not a slow guest): a memoised lookup shared by
// several calls retries when another call's cancellation, not its own, ended it.
const cancellations = new WeakSet<VmhubError>();

/**
 * TIMEOUT for work stopped because the call was cancelled or its deadline passed. The router has
 * already answered the client by then; this only ends the call's remaining steps.
 */
export function cancelled(what: string, outcome = 'stopped', after = ''): VmhubError {
  const err = x11Error('TIMEOUT', `${what} ${outcome}: the call was cancelled or ran out of time${after ? `; ${after}` : ''}`, {
    hint: 'The call was cancelled or its deadline passed, so the rest of it was not done: look at the screen (vm_screenshot) before retrying.',
  });
  cancellations.add(err);
  return err;
}

export function isCancellation(err: unknown): boolean {
  return err instanceof VmhubError && cancellations.has(err);
}

// Errors of a guest command that was KILLED (cancelled or timed out while it ran): an input
// command killed between a key press and its release leaves the key held in the X server, where
// it auto-repeats, so input actions release everything after such an error (x11-release-input.ts).
const killedCommands = new WeakSet<VmhubError>();

export function killed(err: VmhubError): VmhubError {
  killedCommands.add(err);
  return err;
}

export function wasKilled(err: unknown): boolean {
  return err instanceof VmhubError && killedCommands.has(err);
}

/** Before a step: a call that is already over starts nothing more in the guest. */
export function throwIfCancelled(signal: AbortSignal, what: string): void {
  if (signal.aborted) throw cancelled(what, 'not started');
}
