/**
 * One reaper pass: (1) expire, (2) fail stuck provisioning, (3) list each provider once,
 * (4) tear down under claims everything whose machine must go, (5) sweep orphans, (6) revoke
 * what was made for leases that are over (credentials.ts: a lease's GitHub token), whoever ended
 * them, (7) delete expired and orphaned snapshots by identity (snapshots.ts). Each phase catches its own failures, so a broken provider or a busy store costs an error
 * count, never the rest of the pass. Nothing is ever skipped for host conditions (disk, load):
 * teardown is what frees them.
 */
import type { PassContext } from './context.ts';
import { revokePending } from './credentials.ts';
import { expireLeases, failStuck, stuckReleases } from './expire.ts';
import { listMachines, type Listing } from './listing.ts';
import { findOrphans } from './orphans.ts';
import { reapSnapshots } from './snapshots.ts';
import { Tally, type PassSummary } from './summary.ts';
import { teardownAll, type Target } from './teardown.ts';
import { messageOf } from './timeout.ts';

export async function runPass(ctx: PassContext): Promise<PassSummary> {
  const tally = new Tally(ctx.settings.reaperId);
  const now = Date.now();
  const timings: Record<string, number> = {};
  const phase = async <T>(name: string, fn: () => Promise<T>, fallback: T): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } catch (err) {
      tally.error({ message: `${name}: ${messageOf(err)}` });
      ctx.log('error', `reaper phase failed: ${name}`, { error: messageOf(err) });
      return fallback;
    } finally {
      timings[name] = Math.round(performance.now() - t0);
    }
  };

  await phase('expire', () => expireLeases(ctx, tally, now), undefined);
  const failedNow = await phase('fail stuck', () => failStuck(ctx, tally, now), []);
  const listing = await phase<Listing>('list', () => listMachines(ctx, tally), { at: Date.now(), byProvider: new Map() });
  const targets = await phase('collect', () => collectTargets(ctx, now, failedNow), []);
  const handled = new Set(targets.map((t) => t.lease.identity));
  await phase('teardown', () => teardownAll(ctx, targets, listing, tally), undefined);
  const orphans = await phase('orphans', () => findOrphans(ctx, listing, tally, handled, now), []);
  await phase('orphan teardown', () => teardownAll(ctx, orphans, listing, tally), undefined);
  const revoked = await phase('credentials', () => revokePending(ctx.store, { log: ctx.log }), { revoked: 0, failed: 0 });
  if (revoked.failed > 0) tally.error({ message: `credentials: ${revoked.failed} lease credential(s) not revoked; retried next pass` });
  await phase('snapshots', () => reapSnapshots(ctx, tally, now), undefined);
  ctx.log('debug', 'pass phases', { phase_ms: timings });
  return tally.finish();
}

async function collectTargets(ctx: PassContext, now: number, failedNow: Awaited<ReturnType<typeof failStuck>>): Promise<Target[]> {
  const byId = new Map<string, Target>();
  const add = (t: Target) => { if (!byId.has(t.lease.id)) byId.set(t.lease.id, t); };
  // Every expired lease, whoever expired it and however often its teardown failed before.
  for (const lease of await ctx.store.listLeases({ status: ['expired'] })) add({ lease, kind: 'expired', claimIn: 'expired', finalStatus: 'reaped' });
  for (const lease of failedNow) add({ lease, kind: 'stuck', claimIn: 'failed' });
  for (const lease of await stuckReleases(ctx, now)) add({ lease, kind: 'releasing', claimIn: 'releasing', finalStatus: 'released' });
  // Finished leases whose machine the store still shows alive: a server died between the
  // transition and the destroy, or failed a lease and never cleaned up.
  const lingering = await ctx.store.lingering(now - ctx.settings.stuckGraceMs);
  for (const lease of lingering) add({ lease, kind: 'lingering', claimIn: lease.status });
  return [...byId.values()];
}
