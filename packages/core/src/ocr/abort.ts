import { VmhubError } from '../errors.ts';

/** Aborts reject with a VmhubError like every other failure: the signal's own if it carries one. */
export function abortError(signal: AbortSignal | undefined): VmhubError {
  return VmhubError.is(signal?.reason) ? signal.reason : new VmhubError('TIMEOUT', '[vmhub] [ocr] text recognition was aborted', { source: 'ocr', cause: signal?.reason });
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}
