/**
 * Tear machines down under claims. The claim (a conditional UPDATE in the store) is what keeps
 * two reapers — or a reaper and a server — from destroying the same machine twice; it is
 * renewed while the work runs and simply lapses if this process dies, so the next pass (of any
 * reaper) picks the work up again. A machine is destroyed only through its provider, which
 * re-reads it and refuses one whose identity does not match.
 *
 * Work goes in batches: one statement claims a batch, one reads its machine rows, destroys run
 * a few at once, and one transaction records the outcomes (machine states, events, final lease
 * statuses, claims released). A crash between a destroy and its record costs nothing but a
 * repeated destroy that answers `already_gone`.
 */
import type { DestroyOutcome, MachineRef, OwnedMachine } from '@vmhub/core';
import type { LeaseRow, MachineRow } from '@vmhub/store';
import { isIn, MACHINE_DONE, type PassContext } from './context.ts';
import { insertEvents, type NewEvent } from './events.ts';
import type { Listing } from './listing.ts';
import type { Tally } from './summary.ts';
import { eachLimited, messageOf, withTimeout } from './timeout.ts';

export type TargetKind = 'expired' | 'stuck' | 'releasing' | 'lingering' | 'orphan';

export interface Target {
  lease: LeaseRow;
  kind: TargetKind;
  /** Statuses in which the claim may be taken (the lease's status when it was chosen). */
  claimIn: string[];
  /** Status to move to once the machine is gone; none keeps the (already final) status. */
  finalStatus?: 'reaped' | 'released';
}

type MachineOutcome = 'destroyed' | 'already_gone' | 'mismatch' | 'nothing';

interface Done {
  target: Target;
  outcome: MachineOutcome;
  machineState?: 'destroyed' | 'mismatch';
  /** The store had no machine row: record the one found through the provider. */
  insertRow?: MachineRef;
  events: NewEvent[];
}


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
  const claimed = await claimBatch(ctx, batch, tally);
  if (claimed.length === 0) return;
  const pending = new Set(claimed.map((t) => t.lease.id));
  const heartbeat = setInterval(() => {
    if (pending.size === 0) return;
    store.db.updateTable('leases').set({ claim_expires_at: Date.now() + settings.claimMs })
      .where('id', 'in', [...pending]).where('claimed_by', '=', me).execute().catch(() => undefined);
  }, Math.max(100, Math.floor(settings.claimMs / 3)));
  const done: Done[] = [];
  const failed: { target: Target; message: string }[] = [];
  try {
    const machines = new Map<string, MachineRow>();
    for (const row of await store.db.selectFrom('machines').selectAll().where('lease_id', 'in', [...pending]).execute()) machines.set(row.lease_id, row);
    await eachLimited(claimed, settings.concurrency, async (target) => {
      try {
        done.push(await destroyOne(ctx, target, machines.get(target.lease.id), listing, tally));
      } catch (err) {
        // The claim is kept until it lapses: a destroy that timed out may still be running, and
        // a second one must not start beside it. This process may re-take it on its next pass.
        const message = messageOf(err);
        failed.push({ target, message });
        tally.error({ lease_id: target.lease.id, provider: target.lease.provider, message });
        ctx.log('error', 'teardown failed: retried next pass', { lease_id: target.lease.id, provider: target.lease.provider, error: message });
        pending.delete(target.lease.id);
      }
    });
  } finally {
    clearInterval(heartbeat);
  }
  await recordBatch(ctx, done, failed, tally);
}

/** Claim every target of the batch that nobody else holds; one UPDATE per claimable-status set. */
async function claimBatch(ctx: PassContext, batch: readonly Target[], tally: Tally): Promise<Target[]> {
  const { store, settings } = ctx;
  const groups = new Map<string, Target[]>();
  for (const t of batch) {
    const key = t.claimIn.join(',');
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  const claimed: Target[] = [];
  for (const [key, targets] of groups) {
    const now = Date.now();
    const rows = await store.db.updateTable('leases')
      .set({ claimed_by: settings.reaperId, claim_expires_at: now + settings.claimMs, updated_at: now })
      .where('id', 'in', targets.map((t) => t.lease.id))
      .where('status', 'in', key.split(','))
      .where((eb) => eb.or([eb('claim_expires_at', 'is', null), eb('claim_expires_at', '<', now), eb('claimed_by', '=', settings.reaperId)]))
      .returningAll()
      .execute();
    const won = new Map(rows.map((r) => [r.id, r]));
    const lost = targets.filter((t) => !won.has(t.lease.id));
    for (const t of targets) if (won.has(t.lease.id)) claimed.push({ ...t, lease: won.get(t.lease.id)! });
    if (lost.length > 0) {
      // Still in a claimable status means someone else holds it; otherwise it moved on (done).
      const current = await store.db.selectFrom('leases').select(['id', 'status', 'claimed_by']).where('id', 'in', lost.map((t) => t.lease.id)).execute();
      for (const row of current) {
        if (!key.split(',').includes(row.status)) continue;
        tally.skip('claimed_elsewhere');
        ctx.log('debug', 'lease claimed by another process: left to it', { lease_id: row.id, claimed_by: row.claimed_by });
      }
    }
  }
  return claimed;
}

async function destroyOne(ctx: PassContext, target: Target, machine: MachineRow | undefined, listing: Listing, tally: Tally): Promise<Done> {
  const { settings } = ctx;
  const { lease } = target;
  const listed = listing.byProvider.get(lease.provider);
  const settled = machine !== undefined && isIn(MACHINE_DONE, machine.state);
  // A destroyed/mismatch record written after our list() was taken supersedes the list.
  const listStale = settled && machine.updated_at >= listing.at;
  const refs: MachineRef[] = [];
  if (machine && !settled && machine.external_id) refs.push(rowRef(machine));
  if (listed?.ok && !listStale) {
    for (const m of listed.byIdentity.get(lease.identity) ?? []) {
      if (!refs.some((r) => r.external_id === m.external_id)) refs.push(listedRef(m));
    }
  }
  if (refs.length === 0) {
    // Nothing of ours exists (or it was already settled): the record just catches up.
    if (settled) return { target, outcome: 'nothing', events: [] };
    if (listed?.ok) return { target, outcome: 'already_gone', ...(machine ? { machineState: 'destroyed' as const } : {}), events: [] };
    throw new Error(`[vmhub] [reaper] cannot locate the machine of lease ${lease.id}: the store has no handle for it and provider "${lease.provider}" could not be listed (${listed ? listed.error : ctx.unavailable.get(lease.provider) ?? 'provider not available'})`);
  }
  const provider = ctx.providers.get(lease.provider);
  if (!provider) {
    const why = ctx.unavailable.get(lease.provider) ?? 'no installed plugin has this id';
    throw new Error(`[vmhub] [reaper] provider "${lease.provider}" is not available (${why}): install and configure it where the reaper runs`);
  }
  const events: NewEvent[] = [];
  const outcomes: DestroyOutcome[] = [];
  for (const ref of refs) {
    const outcome = await withTimeout(provider.destroy(ref), settings.callTimeoutMs, `provider ${lease.provider} destroy(${ref.external_id})`);
    outcomes.push(outcome);
    const data = { provider: lease.provider, external_id: ref.external_id, node: ref.node, outcome, reason: target.kind };
    if (outcome === 'identity_mismatch') {
      tally.skip('identity_mismatch');
      ctx.log('warn', 'identity mismatch: machine left alone', { lease_id: lease.id, provider: lease.provider, external_id: ref.external_id, identity: lease.identity });
      events.push({ lease_id: lease.id, kind: 'machine.identity_mismatch', data: { ...data, expected: lease.identity } });
      continue;
    }
    if (outcome === 'destroyed') tally.summary.destroyed++;
    ctx.log('info', outcome === 'destroyed' ? 'machine destroyed' : 'machine already gone', { lease_id: lease.id, provider: lease.provider, external_id: ref.external_id, reason: target.kind });
    events.push({ lease_id: lease.id, kind: target.kind === 'orphan' ? `orphan.${outcome}` : `machine.${outcome}`, data });
  }
  const ours = outcomes.some((o) => o !== 'identity_mismatch');
  return {
    target,
    outcome: !ours ? 'mismatch' : outcomes.includes('destroyed') ? 'destroyed' : 'already_gone',
    machineState: ours ? 'destroyed' : 'mismatch',
    ...(machine ? {} : { insertRow: refs[0] }),
    events,
  };
}

/** One transaction: machine states, final statuses (claims cleared), events. */
async function recordBatch(ctx: PassContext, done: Done[], failed: { target: Target; message: string }[], tally: Tally): Promise<void> {
  if (done.length === 0 && failed.length === 0) return;
  const me = ctx.settings.reaperId;
  const events: NewEvent[] = [];
  const finished: { id: string; status: string; machine: MachineOutcome }[] = [];
  await ctx.store.db.transaction().execute(async (trx) => {
    const now = Date.now();
    const byState = new Map<string, string[]>();
    for (const d of done) {
      events.push(...d.events);
      if (d.insertRow && d.machineState) {
        const ref = d.insertRow;
        const { lease } = d.target;
        await trx.insertInto('machines')
          .values({ lease_id: lease.id, identity: lease.identity, provider: lease.provider, external_id: ref.external_id, node: ref.node ?? null, state: d.machineState, details: JSON.stringify(ref.details ?? {}), created_at: now, updated_at: now })
          .onConflict((oc) => oc.column('lease_id').doUpdateSet({ external_id: ref.external_id, state: d.machineState!, updated_at: now }))
          .execute();
      } else if (d.machineState) {
        byState.set(d.machineState, [...(byState.get(d.machineState) ?? []), d.target.lease.id]);
      }
    }
    for (const [state, ids] of byState) {
      await trx.updateTable('machines').set({ state, updated_at: now }).where('lease_id', 'in', ids).execute();
    }
    // Final transitions, grouped by (from, to, mismatch); only from our own claim.
    const groups = new Map<string, Done[]>();
    const release: string[] = [];
    for (const d of done) {
      if (!d.target.finalStatus) { release.push(d.target.lease.id); continue; }
      const key = `${d.target.claimIn.join(',')}|${d.target.finalStatus}|${d.outcome === 'mismatch'}`;
      groups.set(key, [...(groups.get(key) ?? []), d]);
    }
    for (const [key, group] of groups) {
      const [from, to, mismatch] = key.split('|');
      const extra = mismatch === 'true' ? { error_code: 'IDENTITY_MISMATCH', error_message: 'the machine no longer carried this lease identity; left untouched' } : {};
      const rows = await trx.updateTable('leases')
        .set({ status: to, claimed_by: null, claim_expires_at: null, updated_at: now, ...extra })
        .where('id', 'in', group.map((d) => d.target.lease.id)).where('status', 'in', from.split(',')).where('claimed_by', '=', me)
        .returning('id').execute();
      const ok = new Set(rows.map((r) => r.id));
      for (const d of group) {
        if (!ok.has(d.target.lease.id)) continue;
        finished.push({ id: d.target.lease.id, status: to, machine: d.outcome });
        events.push({ lease_id: d.target.lease.id, kind: `lease.${to}`, data: { from: d.target.lease.status, machine: d.outcome } });
      }
    }
    if (release.length > 0) {
      await trx.updateTable('leases').set({ claimed_by: null, claim_expires_at: null }).where('id', 'in', release).where('claimed_by', '=', me).execute();
    }
    for (const f of failed) events.push({ lease_id: f.target.lease.id, kind: 'reaper.teardown_error', data: { provider: f.target.lease.provider, reason: f.target.kind, message: f.message.slice(0, 500) } });
    await insertEvents(trx, me, events);
  });
  for (const f of finished) {
    if (f.status === 'reaped') tally.summary.reaped++;
    else tally.summary.released++;
    ctx.log('info', `lease ${f.status}`, { lease_id: f.id, machine: f.machine });
  }
}

function rowRef(machine: MachineRow): MachineRef {
  let details: Record<string, unknown> = {};
  try { details = JSON.parse(machine.details); } catch { /* a corrupt details column must not block teardown */ }
  return { identity: machine.identity, external_id: machine.external_id!, ...(machine.node ? { node: machine.node } : {}), details };
}

function listedRef(m: OwnedMachine): MachineRef {
  return { identity: m.identity, external_id: m.external_id, ...(m.node ? { node: m.node } : {}), ...(m.details ? { details: m.details } : {}) };
}
