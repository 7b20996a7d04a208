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

/**
 * better-sqlite3's native addon does not load in this Node.js (built for another Node, or never
 * built): nothing opens until it is rebuilt, so it is not retryable. The message is one line:
 * `detail: fix`; `fix` is the command to run (native-addon.ts).
 */
export class StoreNativeModuleError extends Error {
  override readonly name = 'StoreNativeModuleError';
  readonly code = 'STORE_NATIVE_MODULE';
  readonly retryable = false;
  readonly detail: string;
  readonly fix: string;

  constructor(detail: string, fix: string, options?: ErrorOptions) {
    super(`[vmhub] [store] ${detail}: ${fix}`, options);
    this.detail = detail;
    this.fix = fix;
  }
}
