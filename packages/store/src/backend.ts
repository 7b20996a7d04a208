/**
 * What the store needs from a database, whichever it is: a kysely handle, the order rows were
 * inserted in, migrations, and which failures are the connection's (retried) rather than the
 * statement's. One implementation per dialect: sqlite-backend.ts, postgres-backend.ts.
 */
import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from './schema.ts';

export interface SchemaInfo {
  kind: 'sqlite' | 'postgres';
  /** The latest migration applied. */
  version: number;
  tables: string[];
  /** SQLite's journal mode (`wal`); absent on PostgreSQL. */
  journalMode?: string;
}

export interface Backend {
  readonly kind: 'sqlite' | 'postgres';
  /** The file path, or the URL with its password masked. */
  readonly location: string;
  readonly db: Kysely<Database>;
  /** Breaks created_at ties in insertion order (SQLite's rowid, PostgreSQL's seq). */
  readonly insertionOrder: RawBuilder<unknown>;
  /** How long one store call retries transient failures before STORE_UNAVAILABLE (0: never). */
  readonly retryForMs: number;
  /** Resolves once migrations are applied; a failed attempt is made again by the next call. */
  ready(): Promise<void>;
  schemaInfo(): Promise<SchemaInfo>;
  /** The connection failed (refused, lost, timed out), not the statement: the call may be retried. */
  transient(err: unknown): boolean;
  close(): Promise<void>;
}
