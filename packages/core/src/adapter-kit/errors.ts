/**
 * One adapter's error helpers, made once per package: every message starts with
 * `[vmhub] [<source>]` and carries the source, and work stopped by a cancelled call is a TIMEOUT
 * the kit can recognise (isCancellation), so a fact shared by several calls is loaded again when
 * another call's cancellation, not this call's, ended the load.
 */
import { VmhubError, type ErrorCode, type VmhubErrorOptions } from '../errors.ts';

export const CANCELLED_HINT = 'The call was cancelled or its deadline passed, so the rest of it was not done: look at the screen (vm_screenshot) before retrying.';

const cancellations = new WeakSet<VmhubError>();
const killedCommands = new WeakSet<VmhubError>();

export interface AdapterErrors {
  /** e.g. `adapter-x11`. */
  readonly source: string;
  /** A VmhubError whose message names the adapter: `[vmhub] [adapter-x11] <message>`. */
  error(code: ErrorCode, message: string, options?: Omit<VmhubErrorOptions, 'source'>): VmhubError;
  /**
   * TIMEOUT for work stopped because the call was cancelled or its deadline passed. The router
   * has already answered the client by then; this only ends the call's remaining steps.
   */
  cancelled(what: string, outcome?: string, after?: string): VmhubError;
  /** Before a step: a call that is already over starts nothing more in the guest. */
  throwIfCancelled(signal: AbortSignal | undefined, what: string): void;
  /**
   * CAPABILITY_UNAVAILABLE for a tool the guest lacks, with the fix: add it to the golden image
   * (the adapter's docs page named, when given to adapterErrors).
   */
  missingTool(tool: string, cause?: unknown): VmhubError;
}

/** `docs`: where the adapter's page is (e.g. node_modules/@vmhub/server/docs/adapters/x11.md), named in missing-tool errors. */
export function adapterErrors(source: string, docs?: string): AdapterErrors {
  const error = (code: ErrorCode, message: string, options: Omit<VmhubErrorOptions, 'source'> = {}) =>
    new VmhubError(code, `[vmhub] [${source}] ${message}`, { ...options, source });
  const cancelled = (what: string, outcome = 'stopped', after = '') => {
    const err = error('TIMEOUT', `${what} ${outcome}: the call was cancelled or ran out of time${after ? `; ${after}` : ''}`, { hint: CANCELLED_HINT });
    cancellations.add(err);
    return err;
  };
  return {
    source,
    error,
    cancelled,
    throwIfCancelled(signal, what) {
      if (signal?.aborted) throw cancelled(what, 'not started');
    },
    missingTool: (tool, cause) => error('CAPABILITY_UNAVAILABLE', `${tool} not found in the guest: add it to the golden image${docs ? ` (${docs})` : ''}`, {
      hint: `This VM lacks ${tool}; the operator must add it to the golden image. Other capabilities may still work (vm_capabilities).`,
      details: { tool },
      cause,
    }),
  };
}

/** Whether `err` was raised because the call's signal aborted (not because the guest was slow). */
export function isCancellation(err: unknown): boolean {
  return err instanceof VmhubError && cancellations.has(err);
}

/**
 * Mark the error of a guest command that was KILLED while it ran (cancelled, or over its
 * timeout): an input command killed between a key press and its release leaves the key held, so
 * an adapter may release everything after such an error (adapter-x11 does).
 */
export function killed(err: VmhubError): VmhubError {
  killedCommands.add(err);
  return err;
}

export function wasKilled(err: unknown): boolean {
  return err instanceof VmhubError && killedCommands.has(err);
}

/** Keep an error message short: the start of a long stderr says what went wrong. */
export function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
