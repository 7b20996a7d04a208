/**
 * Phase 1 and 2 transitions, all in the store: one bulk conditional UPDATE per source status,
 * whose WHERE is the reason itself (`expires_at < now`, `deadline_at < now`). A lease renewed
 * or released a moment earlier no longer matches, so it is never expired or failed by mistake,
 * and ten thousand leases cost a handful of statements in one transaction.
 */
import type { LeaseRow } from '@vmhub/store';
import type { PassContext } from './context.ts';
import { insertEvents, type NewEvent } from './events.ts';
import type { Tally } from './summary.ts';

const EXPIRABLE = ['provisioning', 'starting', 'ready'];
const PROVISIONING = ['provisioning', 'starting'];

/** Live leases past expires_at or max_expires_at → expired. */
export async function expireLeases(ctx: PassContext, tally: Tally, now: number): Promise<void> {
  const events: NewEvent[] = [];
  await ctx.store.db.transaction().execute(async (trx) => {
    for (const from of EXPIRABLE) {
      const rows = await trx.updateTable('leases')
        .set({ status: 'expired', updated_at: Date.now() })
        .where('status', '=', from)
        .where((eb) => eb.or([eb('expires_at', '<', now), eb('max_expires_at', '<', now)]))
        .returning(['id', 'expires_at', 'max_expires_at'])
        .execute();
      for (const row of rows) {
        const reason = row.max_expires_at < now ? 'max_lifetime' : 'ttl';
        events.push({ lease_id: row.id, kind: 'lease.expired', data: { from, reason, expires_at: row.expires_at, max_expires_at: row.max_expires_at } });
      }
    }
    await insertEvents(trx, ctx.settings.reaperId, events);
  });
  tally.summary.expired += events.length;
  for (const e of events) ctx.log('info', 'lease expired', { lease_id: e.lease_id, from: e.data?.from, reason: e.data?.reason });
}

/** Leases stuck in provisioning/starting past their deadline → failed. Returns them for teardown. */
export async function failStuck(ctx: PassContext, tally: Tally, now: number): Promise<LeaseRow[]> {
  const fallback = now - ctx.settings.provisionTimeoutMs;
  const failed: LeaseRow[] = [];
  const events: NewEvent[] = [];
  await ctx.store.db.transaction().execute(async (trx) => {
    for (const from of PROVISIONING) {
      const rows = await trx.updateTable('leases')
        .set({ status: 'failed', error_code: 'BOOT_TIMEOUT', error_message: `[vmhub] [reaper] lease stuck in ${from} past its deadline; its machine is destroyed: create a new lease`, updated_at: Date.now() })
        .where('status', '=', from)
        .where((eb) => eb.or([
          eb.and([eb('deadline_at', 'is not', null), eb('deadline_at', '<', now)]),
          eb.and([eb('deadline_at', 'is', null), eb('created_at', '<', fallback)]),
        ]))
        .returningAll()
        .execute();
      for (const row of rows) {
        failed.push(row);
        events.push({ lease_id: row.id, kind: 'lease.failed', data: { from, reason: 'deadline', deadline_at: row.deadline_at } });
      }
    }
    await insertEvents(trx, ctx.settings.reaperId, events);
  });
  tally.summary.failed += failed.length;
  for (const e of events) ctx.log('warn', 'lease failed: stuck past its deadline', { lease_id: e.lease_id, from: e.data?.from });
  return failed;
}

/** Releasing leases whose releaser died: claim lapsed (or never set) longer than the stuck grace. */
export function stuckReleases(ctx: PassContext, now: number): Promise<LeaseRow[]> {
  const before = now - ctx.settings.stuckGraceMs;
  return ctx.store.db.selectFrom('leases').selectAll()
    .where('status', '=', 'releasing')
    .where((eb) => eb.or([
      eb.and([eb('claim_expires_at', 'is not', null), eb('claim_expires_at', '<', before)]),
      eb.and([eb('claim_expires_at', 'is', null), eb('updated_at', '<', before)]),
    ]))
    .execute();
}
