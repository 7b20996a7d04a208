/**
 * Phase 1 and 2 transitions, all in the store. Each is one conditional UPDATE that re-checks
 * the reason it was chosen (`expires_at < now`, `deadline_at < now`), so a lease renewed or
 * released between our read and our write is never expired or failed by mistake.
 */
import type { LeaseRow } from '@vmhub/store';
import type { PassContext } from './context.ts';
import type { Tally } from './summary.ts';

const EXPIRABLE = ['provisioning', 'starting', 'ready'];
const PROVISIONING = ['provisioning', 'starting'];

/** Live leases past expires_at or max_expires_at → expired. */
export async function expireLeases(ctx: PassContext, tally: Tally, now: number): Promise<void> {
  const { store } = ctx;
  const candidates = await store.db.selectFrom('leases').selectAll()
    .where('status', 'in', EXPIRABLE)
    .where((eb) => eb.or([eb('expires_at', '<', now), eb('max_expires_at', '<', now)]))
    .execute();
  for (const lease of candidates) {
    const row = await store.db.updateTable('leases')
      .set({ status: 'expired', updated_at: Date.now() })
      .where('id', '=', lease.id)
      .where('status', '=', lease.status)
      .where((eb) => eb.or([eb('expires_at', '<', now), eb('max_expires_at', '<', now)]))
      .returningAll()
      .executeTakeFirst();
    if (!row) continue;
    tally.summary.expired++;
    const reason = row.max_expires_at < now ? 'max_lifetime' : 'ttl';
    ctx.log('info', 'lease expired', { lease_id: row.id, from: lease.status, reason });
    await store.appendEvent({ lease_id: row.id, actor: ctx.settings.reaperId, kind: 'lease.expired', data: { from: lease.status, reason, expires_at: row.expires_at, max_expires_at: row.max_expires_at } });
  }
}

/** Leases stuck in provisioning/starting past their deadline → failed. Returns them for teardown. */
export async function failStuck(ctx: PassContext, tally: Tally, now: number): Promise<LeaseRow[]> {
  const { store } = ctx;
  const fallback = now - ctx.settings.provisionTimeoutMs;
  const overdue = (eb: any) => eb.or([
    eb.and([eb('deadline_at', 'is not', null), eb('deadline_at', '<', now)]),
    eb.and([eb('deadline_at', 'is', null), eb('created_at', '<', fallback)]),
  ]);
  const candidates = await store.db.selectFrom('leases').selectAll().where('status', 'in', PROVISIONING).where(overdue).execute();
  const failed: LeaseRow[] = [];
  for (const lease of candidates) {
    const message = `[vmhub] [reaper] lease stuck in ${lease.status} past its deadline (${new Date(lease.deadline_at ?? lease.created_at + ctx.settings.provisionTimeoutMs).toISOString()}); its machine is destroyed: create a new lease`;
    const row = await store.db.updateTable('leases')
      .set({ status: 'failed', error_code: 'BOOT_TIMEOUT', error_message: message, updated_at: Date.now() })
      .where('id', '=', lease.id)
      .where('status', '=', lease.status)
      .where(overdue)
      .returningAll()
      .executeTakeFirst();
    if (!row) continue;
    tally.summary.failed++;
    failed.push(row);
    ctx.log('warn', 'lease failed: stuck past its deadline', { lease_id: row.id, from: lease.status });
    await store.appendEvent({ lease_id: row.id, actor: ctx.settings.reaperId, kind: 'lease.failed', data: { from: lease.status, reason: 'deadline', deadline_at: lease.deadline_at } });
  }
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
