/**
 * The store's typed errors. Each carries a `code` the server maps to its own error family
 * (STORE_UNAVAILABLE is one of @vmhub/core's codes: retryable, with a hint for the operator).
 */
export { StoreConfigError } from './target.ts';

/** The database cannot be reached (PostgreSQL down, a connection lost and not regained in time, a statement timed out). Retry later. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'STORE_UNAVAILABLE';
  readonly retryable = true;
}

/** The database's schema is newer than this code. */
export class StoreVersionError extends Error {
  override readonly name = 'StoreVersionError';
  readonly code = 'STORE_TOO_NEW';
}
