/**
 * One error family for everything vmhub says went wrong.
 *
 * Every code has a default `retryable` flag and a `hint` telling an agent (or operator) what to do
 * next. Adapters, providers and the server throw `VmhubError`; the router turns any error into an
 * MCP `isError` result whose `structuredContent` is `{code, message, retryable, hint}`.
 */

export const ERROR_CODES = {
  CAPABILITY_UNAVAILABLE: { retryable: false, hint: 'This VM cannot do that: call vm_capabilities, or lease a template that lists the capability (vm_list_templates).' },
  INVALID_REQUEST: { retryable: false, hint: 'Fix the arguments as the message says, then call again.' },
  NOT_FOUND: { retryable: false, hint: 'Check the id or path: vm_list_templates lists templates, vm_lease_status shows a lease.' },
  LEASE_EXPIRED: { retryable: false, hint: 'The lease has ended: create a new one with vm_lease_create.' },
  LEASE_NOT_READY: { retryable: true, hint: 'Wait with vm_lease_status {wait_seconds} until status is "ready".' },
  QUOTA_EXCEEDED: { retryable: true, hint: 'Release leases you no longer need (vm_lease_release), or wait and retry.' },
  HOST_CAPACITY: { retryable: true, hint: 'The host is full: wait about a minute, or release other leases, then retry.' },
  NODE_UNAVAILABLE: { retryable: true, hint: 'No node can take this template now: retry later or pick another template.' },
  MACHINE_LOST: { retryable: false, hint: 'The machine was removed or stopped outside vmhub, and its lease has ended: create a new lease (vm_lease_create).' },
  PROVISION_FAILED: { retryable: false, hint: 'Release this lease and create a new one; if it keeps failing, report the message to the operator.' },
  BOOT_TIMEOUT: { retryable: false, hint: 'The VM did not become ready in time: release it and create a new lease.' },
  LOCK_CONTENTION: { retryable: true, hint: 'Another operation holds the lock: retry in a few seconds.' },
  ALREADY_EXISTS: { retryable: false, hint: 'That request_id already names a lease: use vm_lease_status on it, or pick a new request_id.' },
  POLICY_DENIED: { retryable: false, hint: 'The operator\'s policy forbids this: use another tool or ask the operator.' },
  TIMEOUT: { retryable: true, hint: 'The operation ran out of time: retry, or raise the timeout if the tool has one.' },
  CANCELLED: { retryable: false, hint: 'The client cancelled the call (or its connection closed) before it finished: the work may be half done. Look at the machine (vm_screenshot, vm_exec) before doing it again.' },
  RESULT_TOO_LARGE: { retryable: false, hint: 'The answer would not fit one message: ask for less (vm_get_file {offset, length}, a smaller screenshot, less output).' },
  JOB_LOST: { retryable: false, hint: 'The detached command belonged to a vmhub server process that ended before it did: its result is gone. Run it again; for work that must outlive the server, have the command write its output to a file in the guest and read that with vm_get_file.' },
  HUMAN_CONTROL: { retryable: true, hint: 'A person has taken over this machine. Wait for hand-back: call vm_screenshot to watch (it keeps working) and retry later.' },
  STORE_UNAVAILABLE: { retryable: true, hint: 'vmhub\'s database is unreachable for now: retry in a few seconds. Operator: check that the database in VMHUB_DB is running (vm_health shows the store).' },
  INTERNAL: { retryable: true, hint: 'Retry once; if it fails again, report the message to the operator.' },
} as const satisfies Record<string, { retryable: boolean; hint: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface VmhubErrorOptions {
  /** Override the code's default. */
  retryable?: boolean;
  /** Override the code's default hint. */
  hint?: string;
  /** The plugin (adapter or provider id) or component that raised it. */
  source?: string;
  /** Extra machine-readable detail, safe to show (never secrets). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

const BRAND = Symbol.for('vmhub.error');

export class VmhubError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly hint: string;
  readonly source: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options: VmhubErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VmhubError';
    this.code = code;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    this.hint = options.hint ?? ERROR_CODES[code].hint;
    this.source = options.source;
    this.details = options.details;
  }

  /** Brand check that works across copies of this package (a plugin may bundle its own). */
  static is(value: unknown): value is VmhubError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  toJSON(): ErrorPayload {
    return toErrorPayload(this);
  }
}

/** What a client sees in `structuredContent` of an error result. */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  hint: string;
  source?: string;
  details?: Record<string, unknown>;
}

export function toErrorPayload(err: VmhubError): ErrorPayload {
  const out: ErrorPayload = { code: err.code, message: err.message, retryable: err.retryable, hint: err.hint };
  if (err.source) out.source = err.source;
  if (err.details) out.details = err.details;
  return out;
}

/**
 * The inverse of `toErrorPayload`: the error a payload describes, for a payload read back from
 * where it was kept (a job's outcome in the store, another process's answer). Round-trips exactly.
 */
export function fromErrorPayload(payload: ErrorPayload): VmhubError {
  return new VmhubError(payload.code, payload.message, {
    retryable: payload.retryable,
    hint: payload.hint,
    ...(payload.source ? { source: payload.source } : {}),
    ...(payload.details ? { details: payload.details } : {}),
  });
}

/**
 * Turn anything thrown into a VmhubError. A VmhubError keeps its code (and gains `source` when it
 * had none); anything else becomes INTERNAL, message prefixed with the component.
 */
export function asVmhubError(err: unknown, source?: string): VmhubError {
  if (VmhubError.is(err)) {
    if (source && !err.source) {
      return new VmhubError(err.code, err.message, { retryable: err.retryable, hint: err.hint, source, details: err.details, cause: err.cause });
    }
    return err;
  }
  const message = err instanceof Error ? err.message : String(err);
  // @vmhub/store's typed errors carry their code: the database being down is not an internal error.
  if (err instanceof Error && (err as { code?: unknown }).code === 'STORE_UNAVAILABLE') {
    return new VmhubError('STORE_UNAVAILABLE', message, { source: source ?? 'store', cause: err });
  }
  // Nor is a better-sqlite3 built for another Node.js: no retry helps, its fix is a rebuild.
  if (err instanceof Error && (err as { code?: unknown }).code === 'STORE_NATIVE_MODULE') {
    const fix = (err as { fix?: unknown }).fix;
    return new VmhubError('STORE_UNAVAILABLE', message, { source: source ?? 'store', cause: err, retryable: false, hint: `The vmhub host cannot open its database. Operator: ${typeof fix === 'string' ? fix : 'rebuild better-sqlite3 for the Node.js that runs vmhub'}.` });
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return new VmhubError('TIMEOUT', `${prefix(source)}operation aborted: ${message}`, { source, cause: err });
  }
  return new VmhubError('INTERNAL', `${prefix(source)}${message}`, { source, cause: err });
}

function prefix(source: string | undefined): string {
  return source ? `[vmhub] [${source}] ` : '[vmhub] ';
}

/** Shorthand used across the codebase: `throw vmhubError('NOT_FOUND', '...')`. */
export function vmhubError(code: ErrorCode, message: string, options?: VmhubErrorOptions): VmhubError {
  return new VmhubError(code, message, options);
}
