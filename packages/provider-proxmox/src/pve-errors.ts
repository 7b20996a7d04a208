/**
 * Proxmox failures and how they become VmhubErrors. Proxmox says what went wrong in prose (the
 * HTTP reason phrase, `message` since libpve-http-server 5.2, an `errors` map on 400, or a task's
 * exit status), so the mapping reads the text: lock texts → LOCK_CONTENTION, capacity →
 * HOST_CAPACITY, unreachable node → NODE_UNAVAILABLE, a failed ACL check → POLICY_DENIED naming the
 * privilege and path the token lacks.
 */
import { VmhubError, type ErrorCode } from '@vmhub/core';

export const SOURCE = 'provider-proxmox';

/** A failed API call, before mapping. Never carries request headers (the token). */
export class PveApiError extends Error {
  readonly status: number;
  readonly errors: Record<string, string> | undefined;
  readonly method: string;
  readonly path: string;
  readonly endpoint: string;
  /** Node.js/network error code when no HTTP answer arrived (ECONNREFUSED, ETIMEDOUT, ...). */
  readonly netCode: string | undefined;

  constructor(init: { status: number; message: string; errors?: Record<string, string>; method: string; path: string; endpoint: string; netCode?: string }) {
    super(init.message);
    this.name = 'PveApiError';
    this.status = init.status;
    this.errors = init.errors;
    this.method = init.method;
    this.path = init.path;
    this.endpoint = init.endpoint;
    this.netCode = init.netCode;
  }

  /** The whole text Proxmox gave, errors map included: what the patterns below look at. */
  get text(): string {
    const errs = this.errors ? Object.entries(this.errors).map(([k, v]) => `${k}: ${v}`).join('; ') : '';
    return errs ? `${this.message} (${errs})` : this.message;
  }
}

export function isPveApiError(err: unknown): err is PveApiError {
  return err instanceof PveApiError;
}

export const LOCK_TEXT = /is locked \(|can't lock file|got lock request timeout|cfs-lock .* error|lock-\d+\.conf' - got timeout/i;
const CAPACITY_TEXT = /unable to get any free VMID|not enough (free )?(memory|space)|out of (memory|space)|no space left|cannot allocate memory|insufficient|would exceed|storage .* is full/i;
const GONE_TEXT = /does not exist|no such (vm|task)|not found/i;
const NODE_TEXT = /no route to host|connection refused|node .* (is )?offline|errors during connection establishment|hostname lookup .* failed|host is unreachable/i;
const PERMISSION = /Permission check failed \(([^,)]+)(?:, ([^)]+))?\)/;

/** Is this failure worth repeating the same request (transient transport/server trouble)? */
export function isTransient(err: PveApiError): boolean {
  if (err.status === 0) return true; // no HTTP answer: connection refused/reset, timeout
  if ([502, 503, 504, 595, 596, 597, 598, 599].includes(err.status)) return true;
  if (err.status === 500) return !isSemantic500(err);
  return false;
}

/** A 500 that is Proxmox telling us something about the VM, not the server failing. */
export function isSemantic500(err: PveApiError): boolean {
  return LOCK_TEXT.test(err.text) || GONE_TEXT.test(err.text) || /already exists|already (running|used)|not running|guest agent|No QEMU|protection|Agent error|unable to|you can't|cannot|can't|not supported|not available/i.test(err.text);
}

export function isGone(err: unknown): boolean {
  if (isPveApiError(err)) return (err.status === 500 || err.status === 404 || err.status === 400) && GONE_TEXT.test(err.text);
  return VmhubError.is(err) && err.code === 'NOT_FOUND';
}

/**
 * 403 on a VM path. With rights granted through a pool, a VM that no longer exists is no longer in
 * the pool, so Proxmox answers 403 rather than "does not exist".
 */
export function isForbidden(err: unknown): boolean {
  return isPveApiError(err) && err.status === 403;
}

export function isLock(err: unknown): boolean {
  if (isPveApiError(err)) return LOCK_TEXT.test(err.text);
  return VmhubError.is(err) && err.code === 'LOCK_CONTENTION';
}

/** Map a task exit status or API error text (+ HTTP status when there was one) to a code. */
export function codeFor(status: number, text: string): ErrorCode {
  if (status === 403 || PERMISSION.test(text)) return 'POLICY_DENIED';
  if (status === 401) return 'PROVISION_FAILED';
  if (LOCK_TEXT.test(text)) return 'LOCK_CONTENTION';
  if (CAPACITY_TEXT.test(text)) return 'HOST_CAPACITY';
  if (status === 595 || NODE_TEXT.test(text)) return 'NODE_UNAVAILABLE';
  if (status === 0) return /timed? ?out|ETIMEDOUT|timeout/i.test(text) ? 'TIMEOUT' : 'NODE_UNAVAILABLE';
  if (status >= 596) return 'TIMEOUT';
  if (status === 502 || status === 503 || status === 504) return 'NODE_UNAVAILABLE';
  if (GONE_TEXT.test(text) && status !== 400) return 'NOT_FOUND';
  return 'PROVISION_FAILED';
}

export function permissionOf(text: string): { path: string; privilege?: string } | undefined {
  const m = PERMISSION.exec(text);
  if (!m) return undefined;
  return m[2] ? { path: m[1], privilege: m[2] } : { path: m[1] };
}

/** Turn any failure of a step into a VmhubError whose message names the step and the fix. */
export function toVmhubError(err: unknown, what: string): VmhubError {
  if (VmhubError.is(err)) return err;
  if (isPveApiError(err)) {
    const code = codeFor(err.status, err.text);
    const where = `${err.method} ${err.path} on node "${err.endpoint}"`;
    const details: Record<string, unknown> = { status: err.status, endpoint: err.endpoint, path: err.path };
    if (err.netCode) details.net_code = err.netCode;
    if (code === 'POLICY_DENIED') {
      const perm = permissionOf(err.text);
      if (perm) Object.assign(details, perm);
      const need = perm?.privilege ? `${perm.privilege} on ${perm.path}` : perm?.path ?? 'a privilege';
      return new VmhubError('POLICY_DENIED', `[vmhub] [${SOURCE}] ${what}: the API token lacks ${need} (${where}: ${err.message.trim()}); grant it to the token's role (node_modules/@vmhub/server/docs/setup-proxmox.md)`, { source: SOURCE, details, hint: `Ask the Proxmox administrator to grant ${need} to the vmhub token (node_modules/@vmhub/server/docs/setup-proxmox.md), or use another template.` });
    }
    if (err.status === 401) {
      return new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] ${what}: authentication failed on node "${err.endpoint}": check the token id and secret (PVE_TOKEN_ID / PVE_TOKEN or VMHUB_NODE_<ID>_TOKEN)`, { source: SOURCE, details });
    }
    return new VmhubError(code, `[vmhub] [${SOURCE}] ${what}: ${where} failed${err.status ? ` with HTTP ${err.status}` : ''}: ${err.text.trim()}`, { source: SOURCE, details });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] ${what}: ${message}`, { source: SOURCE });
}

/** A task that ended with anything but OK / WARNINGS: n. */
export function taskError(what: string, exitstatus: string, upid: string, endpoint: string): VmhubError {
  const code = codeFor(500, exitstatus);
  return new VmhubError(code === 'NOT_FOUND' ? 'PROVISION_FAILED' : code, `[vmhub] [${SOURCE}] ${what}: task ${upid} on node "${endpoint}" ended with "${exitstatus}"`, { source: SOURCE, details: { upid, exitstatus, endpoint } });
}
