/**
 * What a VMHUB_DB value names: a SQLite file (a path, or `:memory:`) or a PostgreSQL database
 * (`postgres://` / `postgresql://`). Any other `scheme://` is refused, naming the scheme: it is
 * never taken for a file path (which once made `mysql://…` a SQLite file in the working directory).
 */
export type StoreTarget =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string; /** The URL with its password masked: safe for logs and vm_health. */ redacted: string; settings: PostgresSettings };

/** vmhub's own query parameters on a postgres:// URL (removed before the URL reaches pg). */
export interface PostgresSettings {
  /** Connections per process (`pool_max`, default 10). */
  poolMax?: number;
  /** Server-side statement_timeout in ms (`statement_timeout_ms`, default 10 000). */
  statementTimeoutMs?: number;
  /** How long to wait for a connection in ms (`connect_timeout_ms`, default 3 000). */
  connectTimeoutMs?: number;
  /** How long one store call retries a lost connection before STORE_UNAVAILABLE, in ms (`retry_ms`, default 5 000). */
  retryForMs?: number;
}

export class StoreConfigError extends Error {
  override readonly name = 'StoreConfigError';
  readonly code = 'STORE_CONFIG';
}

const SETTINGS: Record<string, keyof PostgresSettings> = {
  pool_max: 'poolMax',
  statement_timeout_ms: 'statementTimeoutMs',
  connect_timeout_ms: 'connectTimeoutMs',
  retry_ms: 'retryForMs',
};

export function parseStoreTarget(value: string): StoreTarget {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    if (value.trim() === '') throw new StoreConfigError('[vmhub] [store] VMHUB_DB is empty: give a SQLite file path or a postgres:// URL');
    return { kind: 'sqlite', path: value };
  }
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new StoreConfigError(`[vmhub] [store] VMHUB_DB names the scheme "${scheme}://", which this store does not support: use a SQLite file path (e.g. ~/.local/state/vmhub/vmhub.db) or postgres://user:password@host:5432/database`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new StoreConfigError(`[vmhub] [store] VMHUB_DB is not a valid URL (${redact(value)}): postgres://user:password@host:5432/database`);
  }
  if (!url.hostname) throw new StoreConfigError(`[vmhub] [store] VMHUB_DB (${redact(value)}) names no host: postgres://user:password@host:5432/database`);
  const settings: PostgresSettings = {};
  for (const [param, key] of Object.entries(SETTINGS)) {
    const raw = url.searchParams.get(param);
    if (raw === null) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new StoreConfigError(`[vmhub] [store] VMHUB_DB parameter ${param}=${raw} must be a positive integer`);
    settings[key] = n;
    url.searchParams.delete(param);
  }
  const clean = url.toString();
  return { kind: 'postgres', url: clean, redacted: redact(clean), settings };
}

/** The URL with any password replaced by `***`. */
export function redact(value: string): string {
  return value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^:/?#@]*):[^@]*@/, '$1:***@');
}
