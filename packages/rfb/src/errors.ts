/**
 * RfbError: the one error type of @vmhub/rfb. It does not depend on @vmhub/core (the client is
 * reused by the QEMU and Proxmox providers and the macOS adapter), so adapters map `code` to their
 * own typed errors.
 */
export type RfbErrorCode =
  /** The server rejected the credentials, or wants credentials that were not given. */
  | 'AUTH_FAILED'
  /** The server sent something this client cannot parse or does not support. */
  | 'PROTOCOL'
  /** A bound (handshake, fresh screenshot) passed. */
  | 'TIMEOUT'
  /** The connection is closed (by either side, or by an abort signal). */
  | 'CLOSED'
  /** A key name that keysymFor does not know. */
  | 'INVALID_KEY';

export class RfbError extends Error {
  readonly code: RfbErrorCode;
  constructor(code: RfbErrorCode, message: string, options?: { cause?: unknown }) {
    super(`[rfb] ${message}`, options);
    this.name = 'RfbError';
    this.code = code;
  }
}
