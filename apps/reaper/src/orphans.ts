/**
 * Phase 3: machines that carry this instance's identity prefix but whose lease is not live —
 * finished, or unknown to the store (a lost or reset database). Older than the grace period,
 * they are torn down like any lease, under a claim. An unknown one first gets a tombstone lease
 * (`request_id` `reaper-orphan:<identity>`), so the claim has a row to live in and the record
 * of what was found stays.
 */
import type { OwnedMachine } from '@vmhub/core';
import { OWNING_STATUSES, REAPER_PRINCIPAL, type LeaseRow } from '@vmhub/store';
import type { PassContext } from './context.ts';
import type { Listing } from './listing.ts';
import type { Tally } from './summary.ts';
import type { Target } from './teardown.ts';
import { messageOf } from './timeout.ts';

export const ORPHAN_REQUEST_PREFIX = 'reaper-orphan:';

export async function findOrphans(ctx: PassContext, listing: Listing, tally: Tally, handled: ReadonlySet<string>, now: number): Promise<Target[]> {
  const prefix = ctx.settings.identityPrefix;
  const targets: Target[] = [];
  // Identities the store says are owned (live, or expired and being torn down): one narrow
  // query, then full rows only for the few machines that are not owned.
  const owned = await ctx.store.ownedIdentities();
  for (const [providerId, listed] of listing.byProvider) {
    if (!listed.ok) continue;
    const candidates = listed.machines.filter((m) => !handled.has(m.identity) && !owned.has(m.identity));
    if (candidates.length === 0) continue;
    const leases = await ctx.store.leasesByIdentity(candidates.map((m) => m.identity));
    for (const m of candidates) {
      if (!m.identity.startsWith(prefix) || m.identity.length === prefix.length) {
        // The provider should never list these; never destroy on inference.
        tally.skip('foreign_identity');
        continue;
      }
      let lease = leases.get(m.identity);
      // Became live since the narrow query (cannot normally happen: leases are created before machines).
      if (lease && OWNING_STATUSES.includes(lease.status)) continue;
      if (!lease && m.created_at !== undefined && now - m.created_at < ctx.settings.orphanGraceMs) {
        tally.skip('orphan_grace');
        continue;
      }
      if (!lease) {
        try {
          lease = await tombstone(ctx, providerId, m, now);
        } catch (err) {
          tally.error({ provider: providerId, message: `orphan ${m.identity}: cannot record it in the store: ${messageOf(err)}` });
          continue;
        }
      }
      if (lease.provider !== providerId) {
        tally.skip('provider_mismatch');
        ctx.log('warn', 'machine listed by a provider other than its lease names: left alone', { identity: m.identity, provider: providerId, lease_provider: lease.provider });
        continue;
      }
      const since = m.created_at ?? (lease.request_id.startsWith(ORPHAN_REQUEST_PREFIX) ? lease.created_at : lease.updated_at);
      if (now - since < ctx.settings.orphanGraceMs) {
        tally.skip('orphan_grace');
        continue;
      }
      tally.summary.orphans++;
      ctx.log('info', 'orphan found', { identity: m.identity, provider: providerId, external_id: m.external_id, lease_status: lease.status });
      targets.push({ lease, kind: 'orphan', claimIn: lease.status });
    }
  }
  return targets;
}

async function tombstone(ctx: PassContext, providerId: string, m: OwnedMachine, now: number): Promise<LeaseRow> {
  const id = m.identity.slice(ctx.settings.identityPrefix.length);
  const { lease, created } = await ctx.store.createLease({
    id, request_id: `${ORPHAN_REQUEST_PREFIX}${m.identity}`, template: '(orphan)', provider: providerId, adapter: '(none)',
    owner: null, principal: REAPER_PRINCIPAL, status: 'failed', identity: m.identity, created_at: now, expires_at: now, max_expires_at: now, deadline_at: null,
  });
  if (created) {
    await ctx.store.updateLease(id, { error_code: 'ORPHAN', error_message: '[vmhub] [reaper] machine found carrying this instance\'s identity with no lease in the store' });
    await ctx.store.appendEvent({ lease_id: id, actor: ctx.settings.reaperId, kind: 'orphan.found', data: { provider: providerId, external_id: m.external_id, node: m.node, created_at: m.created_at } });
  }
  return lease;
}
