/**
 * A deadline as an AbortSignal whose timer is cleared when the work ends. AbortSignal.timeout()
 * keeps its timer (and every signal combined with it) alive until it fires: a minute after a
 * 10 ms click, or the whole ready timeout after a lease is ready (bench/session-leak.mjs).
 */
export function deadlineSignal(ms: number, message = 'The operation timed out.'): { signal: AbortSignal; clear(): void } {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new DOMException(message, 'TimeoutError')), ms);
  timer.unref();
  return { signal: ctl.signal, clear: () => clearTimeout(timer) };
}
