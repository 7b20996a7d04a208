/** The adapter's error helpers (the kit's, named for this adapter): every message names the component and says what to do. */
import type { VmhubError } from '@vmhub/core';
import { adapterErrors } from '@vmhub/core/adapter-kit';

export const SOURCE = 'adapter-android';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/android.md';

export const errors = adapterErrors(SOURCE);
export const androidError = errors.error;

export function missingTool(tool: string, cause?: unknown): VmhubError {
  return androidError('CAPABILITY_UNAVAILABLE', `${tool} not found on the device (not on the adb shell's PATH): this Android build lacks it (${DOCS})`, {
    hint: `This device lacks ${tool}; other capabilities may still work (vm_capabilities).`,
    details: { tool },
    cause,
  });
}

export const cancelled = errors.cancelled;
export const throwIfCancelled = errors.throwIfCancelled;

export { clip } from '@vmhub/core/adapter-kit';

/**
 * A long command output cut in the middle: its start says what ran, its end what went wrong (the
 * last line of a traceback names the exception).
 */
export function clipMiddle(text: string, max = 600): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 3);
  return `${text.slice(0, head)} … ${text.slice(text.length - (max - head))}`;
}
