/**
 * Tear machines down under claims. The claim (a conditional UPDATE in the store) is what keeps
 * two reapers — or a reaper and a server — from destroying the same machine twice; it is
 * renewed while the work runs and simply lapses if this process dies, so the next pass (of any
 * reaper) picks the work up again. A machine is destroyed only through its provider, which
 * re-reads it and refuses one whose identity does not match.
 *
 * Work goes in batches: one statement claims a batch (store.claimMany), one reads its machine
 * rows (store.machinesFor), destroys run a few at once, and one transaction records the outcomes
 * (store.recordTeardowns: machine states, events, final lease statuses, claims released) — the
 * same record the server writes for a single lease. A crash between a destroy and its record
 * costs nothing but a repeated destroy that answers `already_gone`.
 */
import type { DestroyOutcome, MachineRef } from '@vmhub/core';
import { foldDestroys, listedRef, machineRef, type LeaseRow, type LeaseStatus, type MachineRow, type TeardownEvent, type TeardownRecord } from '@vmhub/store';
import { isIn, MACHINE_DONE, type PassContext } from './context.ts';
import type { Listing } from './listing.ts';
import type { Tally } from './summary.ts';
import { eachLimited, messageOf, withTimeout } from './timeout.ts';

export type TargetKind = 'expired' | 'stuck' | 'releasing' | 'lingering' | 'orphan';

export interface Target {
  lease: LeaseRow;
  kind: TargetKind;
  /** Status in which the claim may be taken (the lease's status when it was chosen). */
  claimIn: LeaseStatus;
  /** Status to move to once the machine is gone; none keeps the (already final) status. */
  finalStatus?: 'reaped' | 'released';
}

/** What the destroys did for one target, as the store records it. */
type Done = TeardownRecord & { outcome: 'destroyed' | 'already_gone' | 'mismatch' | 'nothing' };

export async function teardownAll(ctx: PassContext, targets: readonly Target[], listing: Listing, tally: Tally): Promise<void> {
  // Small enough that a slow provider's results are recorded within a few destroys' time.
  const batch = Math.max(8, ctx.settings.concurrency * 8);
  for (let i = 0; i < targets.length; i += batch) {
    try {
      await teardownBatch(ctx, targets.slice(i, i + batch), listing, tally);
    } catch (err) {
      tally.error({ message: `teardown batch: ${messageOf(err)}` });
      ctx.log('error', 'teardown batch failed: its claims lapse and the next pass retries', { error: messageOf(err) });
    }
  }
}

async function teardownBatch(ctx: PassContext, batch: readonly Target[], listing: Listing, tally: Tally): Promise<void> {
  const { store, settings } = ctx;
  const me = settings.reaperId;
  // Until when our claims surely hold: the last `until` the store accepted from us.
  let validUntil = Date.now() + settings.claimMs;
  const claimed = await claimBatch(ctx, batch, validUntil, tally);
  if (claimed.length === 0) return;
  const pending = new Set(claimed.map((t) => t.lease.id));
  const heartbeat = setInterval(() => {
    if (pending.size === 0) return;
    const until = Date.now() + settings.claimMs;
    store.renewClaims([...pending], me, until).then(() => { validUntil = Math.max(validUntil, until); }, () => undefined);
  }, Math.max(100, Math.floor(settings.claimMs / 3)));
  const records: TeardownRecord[] = [];
  const done: Done[] = [];
  try {
    const machines = await store.machinesFor([...pending]);
    await eachLimited(claimed, settings.concurrency, async (target) => {
      // Two heartbeats missed (the store unreachable: a partition, an outage): the claims may
      // lapse before a destroy started now ends, and another reaper may then take them. Start
      // no more destroys; the rest are left to lapse and be taken over (by us or another).
      if (Date.now() > validUntil - settings.claimMs / 3) {
        tally.skip('claim_not_renewed');
        ctx.log('warn', 'teardown claim could not be renewed: destroy not started, left to whoever claims it next', { lease_id: target.lease.id });
        pending.delete(target.lease.id);
        return;
      }
      try {
        const d = await destroyOne(ctx, target, machines.get(target.lease.id), listing, tally);
        done.push(d);
        records.push(d);
      } catch (err) {
        // The claim is kept until it lapses: a destroy that timed out may still be running, and
        // a second one must not start beside it. This process may re-take it on its next pass.
        const message = messageOf(err);
        const { lease } = target;
        records.push({ lease_id: lease.id, keepClaim: true, events: [{ kind: 'reaper.teardown_error', data: { provider: lease.provider, reason: target.kind, message: message.slice(0, 500) } }] });
        tally.error({ lease_id: lease.id, provider: lease.provider, message });
        ctx.log('error', 'teardown failed: retried next pass', { lease_id: lease.id, provider: lease.provider, error: message });
        pending.delete(lease.id);
      }
    });
  } finally {
    clearInterval(heartbeat);
  }
  // One transaction: machine states, final statuses (only under our claim), claims released, events.
  const finished = await store.recordTeardowns(me, records);
  const outcomes = new Map(done.map((d) => [d.lease_id, d.outcome]));
  for (const f of finished) {
    if (f.to === 'reaped') tally.summary.reaped++;
    else tally.summary.released++;
    ctx.log('info', `lease ${f.to}`, { lease_id: f.lease_id, machine: outcomes.get(f.lease_id) });
  }
}

/** Claim every target of the batch that nobody else holds; one UPDATE per claimable status. */
async function claimBatch(ctx: PassContext, batch: readonly Target[], until: number, tally: Tally): Promise<Target[]> {
  const { store, settings } = ctx;
  const groups = new Map<LeaseStatus, Target[]>();
  for (const t of batch) groups.set(t.claimIn, [...(groups.get(t.claimIn) ?? []), t]);
  const claimed: Target[] = [];
  for (const [status, targets] of groups) {
    const { claimed: rows, elsewhere } = await store.claimMany(targets.map((t) => t.lease.id), settings.reaperId, until, [status]);
    const won = new Map(rows.map((r) => [r.id, r]));
    for (const t of targets) if (won.has(t.lease.id)) claimed.push({ ...t, lease: won.get(t.lease.id)! });
    for (const row of elsewhere) {
      tally.skip('claimed_elsewhere');
      ctx.log('debug', 'lease claimed by another process: left to it', { lease_id: row.id, claimed_by: row.claimed_by });
    }
  }
  return claimed;
}

async function destroyOne(ctx: PassContext, target: Target, machine: MachineRow | undefined, listing: Listing, tally: Tally): Promise<Done> {
  const { settings } = ctx;
  const { lease } = target;
  const base = { lease_id: lease.id, ...(target.finalStatus ? { final: { from: target.claimIn, to: target.finalStatus } } : {}) };
  const listed = listing.byProvider.get(lease.provider);
  const settled = machine !== undefined && isIn(MACHINE_DONE, machine.state);
  // A destroyed/mismatch record written after our list() was taken supersedes the list.
  const listStale = settled && machine.updated_at >= listing.at;
  const refs: MachineRef[] = [];
  // A row without an external_id has no handle (machineRef's rule): the listing must find it.
  const stored = machine && !settled ? machineRef(machine) : undefined;
  if (stored) refs.push(stored);
  if (listed?.ok && !listStale) {
    for (const m of listed.byIdentity.get(lease.identity) ?? []) {
      if (!refs.some((r) => r.external_id === m.external_id)) refs.push(listedRef(m));
    }
  }
  if (refs.length === 0) {
    // Nothing of ours exists (or it was already settled): the record just catches up.
    if (settled) return { ...base, outcome: 'nothing' };
    if (listed?.ok) return { ...base, outcome: 'already_gone', ...(machine ? { machine: 'destroyed' as const } : {}) };
    throw new Error(`[vmhub] [reaper] cannot locate the machine of lease ${lease.id}: the store has no handle for it and provider "${lease.provider}" could not be listed (${listed ? listed.error : ctx.unavailable.get(lease.provider) ?? 'provider not available'})`);
  }
  const provider = ctx.providers.get(lease.provider);
  if (!provider) {
    const why = ctx.unavailable.get(lease.provider) ?? 'no installed plugin has this id';
    throw new Error(`[vmhub] [reaper] provider "${lease.provider}" is not available (${why}): install and configure it where the reaper runs`);
  }
  const events: TeardownEvent[] = [];
  const outcomes: DestroyOutcome[] = [];
  for (const ref of refs) {
    const outcome = await withTimeout(provider.destroy(ref), settings.callTimeoutMs, `provider ${lease.provider} destroy(${ref.external_id})`);
    outcomes.push(outcome);
    const data = { provider: lease.provider, external_id: ref.external_id, node: ref.node, outcome, reason: target.kind };
    if (outcome === 'identity_mismatch') {
      tally.skip('identity_mismatch');
      ctx.log('warn', 'identity mismatch: machine left alone', { lease_id: lease.id, provider: lease.provider, external_id: ref.external_id, identity: lease.identity });
      events.push({ kind: 'machine.identity_mismatch', data: { ...data, expected: lease.identity } });
      continue;
    }
    if (outcome === 'destroyed') tally.summary.destroyed++;
    ctx.log('info', outcome === 'destroyed' ? 'machine destroyed' : 'machine already gone', { lease_id: lease.id, provider: lease.provider, external_id: ref.external_id, reason: target.kind });
    events.push({ kind: target.kind === 'orphan' ? `orphan.${outcome}` : `machine.${outcome}`, data });
  }
  const fold = foldDestroys(outcomes);
  return {
    ...base,
    outcome: fold.outcome === 'identity_mismatch' ? 'mismatch' : fold.outcome,
    machine: fold.machine,
    // The store had no row: record the machine found through the provider.
    ...(machine ? {} : { found: { identity: lease.identity, provider: lease.provider, ref: refs[0]! } }),
    events,
  };
}
