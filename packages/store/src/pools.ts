/**
 * Warm pools in the store. A pool machine is an ordinary lease — same state machine, same
 * identity, same reaper — held by the reserved principal POOL_PRINCIPAL under an owner naming its
 * pool (`pool:<template>:<hash of the template's definition>`), with a short expiry its server
 * keeps pushing forward. A server that dies stops pushing: the lease expires and the reaper
 * destroys its machine by identity like any other. A claim hands the lease itself to an agent in
 * one guarded UPDATE (principal still the pool's, status ready, not expired), so two claimers can
 * never get the same machine, and a machine never goes back to a pool: released is destroyed.
 */
import type { Kysely, Selectable } from 'kysely';
import { insertEvents } from './events.ts';
import type { LeaseStatus } from './lifecycle.ts';
import { LEASE_COLUMNS, type Database, type LeaseTable } from './schema.ts';

type LeaseRow = Selectable<LeaseTable>;

/**
 * The principal pool leases are held by. No agent can be it: HTTP principals start with a letter
 * or digit, and an OS user name cannot hold ':'.
 */
export const POOL_PRINCIPAL = ':pool';

/** The principal of the reaper's orphan tombstones (rows it writes for machines no lease names). */
export const REAPER_PRINCIPAL = ':reaper';

/** Statuses of a pool lease that still counts towards its pool (being made, or ready). */
export const POOL_LIVE_STATUSES: readonly LeaseStatus[] = ['provisioning', 'starting', 'ready'];

export interface PoolClaim {
  template: string;
  /** The pool's owner value: only its leases are handed out (another definition's are not). */
  pool: string;
  request_id: string;
  principal: string;
  owner: string;
  expires_at: number;
  max_expires_at: number;
  actor: string;
  /** The store call's token: on the claimed row (write_token) and in its event's token. */
  token: string;
  now: number;
}

/**
 * Claim the oldest ready lease of the pool (a few candidates are tried: a concurrent claimer may
 * win one). The lease keeps its id and identity; its request_id, principal, owner and expiry
 * become the agent's, with a `lease.claimed` event in the same transaction.
 */
export async function claimPooled(db: Kysely<Database>, c: PoolClaim): Promise<LeaseRow | undefined> {
  const candidates = await db.selectFrom('leases').select(['id']).where('principal', '=', POOL_PRINCIPAL).where('owner', '=', c.pool)
    .where('template', '=', c.template).where('status', '=', 'ready').where('expires_at', '>', c.now).where('max_expires_at', '>', c.now)
    .orderBy('created_at', 'asc').limit(4).execute();
  for (const { id } of candidates) {
    const row = await db.transaction().execute(async (tx) => {
      const claimed = await tx.updateTable('leases')
        .set({ request_id: c.request_id, principal: c.principal, owner: c.owner, expires_at: c.expires_at, max_expires_at: c.max_expires_at, updated_at: c.now, write_token: c.token })
        .where('id', '=', id).where('principal', '=', POOL_PRINCIPAL).where('status', '=', 'ready').where('expires_at', '>', c.now)
        .returning(LEASE_COLUMNS).executeTakeFirst();
      if (claimed) await insertEvents(tx, c.actor, [{ lease_id: id, kind: 'lease.claimed', data: { pool: c.pool, principal: c.principal, owner: c.owner, request_id: c.request_id }, token: `${c.token}:${id}` }]);
      return claimed;
    });
    if (row) return row;
  }
  return undefined;
}

/**
 * Push the expiry of these pool leases to `until` (never past their max lifetime). Guarded by the
 * pool's principal: a lease claimed a moment ago keeps the expiry its agent got.
 */
export async function holdPooled(db: Kysely<Database>, ids: readonly string[], until: number): Promise<number> {
  let held = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const r = await db.updateTable('leases')
      .set((eb) => ({ expires_at: eb.case().when('max_expires_at', '<', until).then(eb.ref('max_expires_at')).else(until).end() }))
      .where('id', 'in', chunk).where('principal', '=', POOL_PRINCIPAL).where('status', 'in', [...POOL_LIVE_STATUSES])
      .executeTakeFirst();
    held += Number(r.numUpdatedRows);
  }
  return held;
}
