/**
 * Runs a suite once per store dialect: `forDialects('store: leases', (d) => { … })` declares
 * `store [sqlite]: leases` and `store [postgres]: leases`. `d.fresh(name)` gives the VMHUB_DB
 * value of a new, empty database (a file in this test file's temp dir, or a new database on this
 * test file's one real PostgreSQL server, started on first use and destroyed when the file ends);
 * `d.open(name)` opens a Store on one. Stores opened here are closed after their suite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { startPostgres, type PostgresServer } from '@vmhub/postgres-testing';
import { Store, type StoreOptions } from '../src/store.ts';

export type DialectKind = 'sqlite' | 'postgres';
export const DIALECTS: readonly DialectKind[] = ['sqlite', 'postgres'];

export interface Dialect {
  readonly kind: DialectKind;
  /**
   * The VMHUB_DB value of a new, empty database named after `name`. `params` are vmhub's URL
   * settings (`retry_ms`, `pool_max`, …): appended to a PostgreSQL URL, ignored for SQLite.
   */
  fresh(name: string, params?: Record<string, string | number>): Promise<string>;
  /** A Store on a fresh database (closed after the suite). */
  open(name: string, options?: Omit<StoreOptions, 'path'> & { params?: Record<string, string | number> }): Promise<Store>;
  /** A Store on an existing VMHUB_DB value (closed after the suite). */
  connect(path: string, options?: Omit<StoreOptions, 'path'>): Store;
  /** This test file's PostgreSQL server (started by now on postgres; throws on sqlite). */
  readonly server: PostgresServer;
}

let dir: string | undefined;
let server: Promise<PostgresServer> | undefined;
let started: PostgresServer | undefined;
let count = 0;

after(() => {
  started?.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** This test file's PostgreSQL server, started on the first call. */
export async function postgresServer(): Promise<PostgresServer> {
  server ??= startPostgres().then((pg) => (started = pg));
  return server;
}

/** This test file's temp dir (removed when the file ends). */
export function tempDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), 'vmhub-store-test-'));
  return dir;
}

/** `store: leases` → `store [postgres]: leases`. */
export function dialectTitle(title: string, kind: DialectKind): string {
  const colon = title.indexOf(':');
  return colon < 0 ? `${title} [${kind}]` : `${title.slice(0, colon)} [${kind}]${title.slice(colon)}`;
}

export function withParams(url: string, params: Record<string, string | number> = {}): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, String(v));
  return u.toString();
}

export function forDialects(title: string, body: (d: Dialect) => void, options: { only?: readonly DialectKind[] } = {}): void {
  for (const kind of options.only ?? DIALECTS) {
    describe(dialectTitle(title, kind), () => {
      const stores: Store[] = [];
      let pg: PostgresServer | undefined;
      if (kind === 'postgres') before(async () => { pg = await postgresServer(); });
      after(async () => { await Promise.allSettled(stores.map((s) => s.close())); });
      const d: Dialect = {
        kind,
        async fresh(name, params) {
          const n = ++count;
          if (kind === 'sqlite') return join(tempDir(), `${name}-${n}.db`);
          const db = `${name.toLowerCase().replace(/[^a-z0-9_]/g, '_')}_${n}`;
          return withParams(await (await postgresServer()).createDatabase(db), params);
        },
        async open(name, { params, ...rest } = {}) {
          return d.connect(await d.fresh(name, params), rest);
        },
        connect(path, rest = {}) {
          const store = new Store({ path, ...rest });
          stores.push(store);
          return store;
        },
        get server() {
          if (!pg) throw new Error('[vmhub] [store tests] d.server is for PostgreSQL suites (and only inside tests)');
          return pg;
        },
      };
      body(d);
    });
  }
}
