/** The adapter's error helpers: every message names the component and says what to do. */
import { VmhubError, type ErrorCode, type VmhubErrorOptions } from '@vmhub/core';

export const SOURCE = 'adapter-android';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/android.md';

export function androidError(code: ErrorCode, message: string, options: Omit<VmhubErrorOptions, 'source'> = {}): VmhubError {
  return new VmhubError(code, `[vmhub] [${SOURCE}] ${message}`, { ...options, source: SOURCE });
}

export function missingTool(tool: string, cause?: unknown): VmhubError {
  return androidError('CAPABILITY_UNAVAILABLE', `${tool} not found on the device (not on the adb shell's PATH): this Android build lacks it (${DOCS})`, {
    hint: `This device lacks ${tool}; other capabilities may still work (vm_capabilities).`,
    details: { tool },
    cause,
  });
}

/** TIMEOUT for work stopped because the call was cancelled or its deadline passed. */
export function cancelled(what: string, outcome = 'stopped'): VmhubError {
  return androidError('TIMEOUT', `${what} ${outcome}: the call was cancelled or ran out of time`, {
    hint: 'The call was cancelled or its deadline passed, so the rest of it was not done: look at the screen (vm_screenshot) before retrying.',
  });
}

/** Before a step: a call that is already over starts nothing more on the device. */
export function throwIfCancelled(signal: AbortSignal, what: string): void {
  if (signal.aborted) throw cancelled(what, 'not started');
}

export function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A long command output cut in the middle: its start says what ran, its end what went wrong (the
 * last line of a traceback names the exception).
 */
export function clipMiddle(text: string, max = 600): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 3);
  return `${text.slice(0, head)} … ${text.slice(text.length - (max - head))}`;
}
