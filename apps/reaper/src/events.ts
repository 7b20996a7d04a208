/**
 * Batched store writes. A pass over thousands of leases must not pay one SQLite commit per
 * row: each phase's writes go in one transaction, and a teardown's bookkeeping after the
 * destroy (machine state, events, lease transition) is one commit.
 */
import type { Store } from '@vmhub/store';

export interface NewEvent {
  lease_id: string | null;
  kind: string;
  data?: Record<string, unknown>;
}

/** The store's kysely handle or a transaction on it (a Transaction is a Kysely). */
export type Db = Store['db'];

export async function insertEvents(db: Db, actor: string, events: readonly NewEvent[]): Promise<void> {
  const at = Date.now();
  for (let i = 0; i < events.length; i += 500) {
    const rows = events.slice(i, i + 500).map((e) => ({ at, lease_id: e.lease_id, actor, kind: e.kind, data: JSON.stringify(e.data ?? {}) }));
    await db.insertInto('events').values(rows).execute();
  }
}
