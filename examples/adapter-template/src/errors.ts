/** Errors name the component and the fix: `[vmhub] [adapter-example] xwd … : run the X server at depth 24`. */
import { VmhubError, type ErrorCode } from '@vmhub/core';

export function exampleError(code: ErrorCode, message: string): VmhubError {
  return new VmhubError(code, `[vmhub] [adapter-example] ${message}`, { source: 'adapter-example' });
}
