/** The adapter's error helpers (the kit's, named for this adapter): every message names the component and says what to do. */
import type { VmhubError } from '@vmhub/core';
import { adapterErrors } from '@vmhub/core/adapter-kit';

export const SOURCE = 'adapter-macos';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/macos.md';

export const errors = adapterErrors(SOURCE, DOCS);
export const { error: macError, cancelled, throwIfCancelled } = errors;

/** The second path (screencapture/cliclick/osascript) is off for this template. */
export function guestToolsOff(capability: string): VmhubError {
  return macError('CAPABILITY_UNAVAILABLE', `${capability} needs the in-guest tools (osascript over SSH), which this template does not enable: set adapter_options.in_guest_tools: true and grant Accessibility to the SSH chain in the guest (${DOCS})`, {
    hint: 'This template drives macOS over VNC only; window listing and control need in-guest tools. Use vm_screenshot and input instead, or a template with in_guest_tools.',
  });
}
