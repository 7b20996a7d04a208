/** The adapter's error helpers: every message names the component and says what to do. */
import { VmhubError, type ErrorCode, type VmhubErrorOptions } from '@vmhub/core';

export const SOURCE = 'adapter-macos';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/macos.md';

export function macError(code: ErrorCode, message: string, options: Omit<VmhubErrorOptions, 'source'> = {}): VmhubError {
  return new VmhubError(code, `[vmhub] [${SOURCE}] ${message}`, { ...options, source: SOURCE });
}

/** TIMEOUT for work stopped because the call was cancelled or its deadline passed. */
export function cancelled(what: string, outcome = 'stopped'): VmhubError {
  return macError('TIMEOUT', `${what} ${outcome}: the call was cancelled or ran out of time`, {
    hint: 'The call was cancelled or its deadline passed, so the rest of it was not done: look at the screen (vm_screenshot) before retrying.',
  });
}

/** Before a step: a call that is already over starts nothing more in the guest. */
export function throwIfCancelled(signal: AbortSignal, what: string): void {
  if (signal.aborted) throw cancelled(what, 'not started');
}

/** The second path (screencapture/cliclick/osascript) is off for this template. */
export function guestToolsOff(capability: string): VmhubError {
  return macError('CAPABILITY_UNAVAILABLE', `${capability} needs the in-guest tools (osascript over SSH), which this template does not enable: set adapter_options.in_guest_tools: true and grant Accessibility to the SSH chain in the guest (${DOCS})`, {
    hint: 'This template drives macOS over VNC only; window listing and control need in-guest tools. Use vm_screenshot and input instead, or a template with in_guest_tools.',
  });
}
