/** The adapter's error helpers: every message names the component and says what to do. */
import { VmhubError, type ErrorCode, type VmhubErrorOptions } from '@vmhub/core';

export const SOURCE = 'adapter-x11';
export const DOCS = 'docs/adapters/x11.md';

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
