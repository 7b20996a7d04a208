/**
 * A plain `pg` connection beside the store, for tests that look at (or lock) the database
 * behind its back: the schema, pg_stat_activity, a row held FOR UPDATE.
 */
import pg from 'pg';

/** Run `fn` on one fresh connection to `url` (vmhub's own URL settings stripped), then close it. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: plainUrl(url), application_name: 'vmhub-test' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** `url` without vmhub's own parameters (pool_max, retry_ms, …), which pg would pass to the server. */
export function plainUrl(url: string): string {
  const u = new URL(url);
  for (const p of ['pool_max', 'statement_timeout_ms', 'connect_timeout_ms', 'retry_ms']) u.searchParams.delete(p);
  return u.toString();
}

/** Tables, columns (with types and nullability) and indexes of the current schema: what "the same schema" means. */
export async function schemaShape(url: string): Promise<{ tables: string[]; columns: string[]; indexes: string[] }> {
  return withClient(url, async (c) => {
    const tables = (await c.query<{ t: string }>("select tablename as t from pg_tables where schemaname = current_schema() order by 1")).rows.map((r) => r.t);
    const columns = (await c.query<{ c: string }>("select table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable as c from information_schema.columns where table_schema = current_schema() order by 1")).rows.map((r) => r.c);
    const indexes = (await c.query<{ i: string }>("select indexdef as i from pg_indexes where schemaname = current_schema() order by 1")).rows.map((r) => r.i);
    return { tables, columns, indexes };
  });
}
