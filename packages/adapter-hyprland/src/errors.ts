/** The adapter's error helpers (the kit's, named for this adapter): every message names the component and says what to do. */
import type { VmhubError } from '@vmhub/core';
import { adapterErrors } from '@vmhub/core/adapter-kit';

export { isCancellation } from '@vmhub/core/adapter-kit';

export const SOURCE = 'adapter-hyprland';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/hyprland.md';

export const errors = adapterErrors(SOURCE);
export const hyprError = errors.error;
export const cancelled = errors.cancelled;
export const throwIfCancelled = errors.throwIfCancelled;

export function missingTool(tool: string, cause?: unknown): VmhubError {
  return hyprError('CAPABILITY_UNAVAILABLE', `${tool} not found in the guest: add it to the golden image (${DOCS})`, {
    hint: `This VM lacks ${tool}; the operator must add it to the golden image. Other capabilities may still work (vm_capabilities).`,
    details: { tool },
    cause,
  });
}
