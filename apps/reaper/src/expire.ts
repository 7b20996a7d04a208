/**
 * Phase 1 and 2 transitions, done by the store in bulk (`expireDue`, `failStuck`): one
 * conditional UPDATE per source status whose WHERE is the reason itself, and the events, in one
 * transaction. A lease renewed or released a moment earlier no longer matches, so it is never
 * expired or failed by mistake, and ten thousand leases cost a handful of statements.
 */
import type { LeaseRow } from '@vmhub/store';
import type { PassContext } from './context.ts';
import type { Tally } from './summary.ts';

/** Live leases past expires_at or max_expires_at → expired. */
export async function expireLeases(ctx: PassContext, tally: Tally, now: number): Promise<void> {
  const expired = await ctx.store.expireDue(now, ctx.settings.reaperId);
  tally.summary.expired += expired.length;
  for (const e of expired) ctx.log('info', 'lease expired', { lease_id: e.id, from: e.from, reason: e.reason });
}

/** Leases stuck in provisioning/starting past their deadline → failed. Returns them for teardown. */
export async function failStuck(ctx: PassContext, tally: Tally, now: number): Promise<LeaseRow[]> {
  const failed = await ctx.store.failStuck(now, now - ctx.settings.provisionTimeoutMs, ctx.settings.reaperId);
  tally.summary.failed += failed.length;
  for (const f of failed) ctx.log('warn', f.reason === 'deadline' ? 'lease failed: stuck past its deadline' : 'lease failed: the process provisioning it died', { lease_id: f.lease.id, from: f.from });
  return failed.map((f) => f.lease);
}

/** Releasing leases whose releaser died: claim lapsed (or never set) longer than the stuck grace. */
export function stuckReleases(ctx: PassContext, now: number): Promise<LeaseRow[]> {
  return ctx.store.stuckReleases(now - ctx.settings.stuckGraceMs);
}
