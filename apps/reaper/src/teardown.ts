/**
 * Tear one lease's machine down under a claim. The claim (a conditional UPDATE in the store) is
 * what keeps two reapers — or a reaper and a server — from destroying the same machine twice;
 * it is renewed while the work runs and simply lapses if this process dies, so the next pass
 * (of any reaper) picks the work up again. The machine is destroyed only through the provider,
 * which re-reads it and refuses one whose identity does not match.
 */
import type { DestroyOutcome, MachineRef, OwnedMachine } from '@vmhub/core';
import type { LeaseRow, MachineRow } from '@vmhub/store';
import { isIn, MACHINE_DONE, type PassContext } from './context.ts';
import type { Listing } from './listing.ts';
import type { Tally } from './summary.ts';
import { messageOf, withTimeout } from './timeout.ts';

export type TargetKind = 'expired' | 'stuck' | 'releasing' | 'lingering' | 'orphan';

export interface Target {
  lease: LeaseRow;
  kind: TargetKind;
  /** Statuses in which the claim may be taken (the lease's status when it was chosen). */
  claimIn: string[];
  /** Status to move to once the machine is gone; none keeps the (already final) status. */
  finalStatus?: 'reaped' | 'released';
}

export async function teardown(ctx: PassContext, target: Target, listing: Listing, tally: Tally): Promise<void> {
  const { store, settings } = ctx;
  const { lease } = target;
  const me = settings.reaperId;
  const claimed = await store.claim(lease.id, me, Date.now() + settings.claimMs, target.claimIn);
  if (!claimed) {
    const current = await store.getLease(lease.id);
    // Moved on (another reaper finished it, a server released it): nothing left to do here.
    if (current && isIn(target.claimIn, current.status)) {
      tally.skip('claimed_elsewhere');
      ctx.log('debug', 'lease claimed by another process: left to it', { lease_id: lease.id, claimed_by: current.claimed_by });
    }
    return;
  }
  const heartbeat = setInterval(() => {
    store.claim(lease.id, me, Date.now() + settings.claimMs, target.claimIn).catch(() => undefined);
  }, Math.max(100, Math.floor(settings.claimMs / 3)));
  let keepClaim = false;
  try {
    const outcome = await destroyMachine(ctx, target, listing, tally);
    if (outcome === 'error') {
      keepClaim = true;
      return;
    }
    if (target.finalStatus) {
      const mismatch = outcome === 'mismatch' ? { error_code: 'IDENTITY_MISMATCH', error_message: 'the machine no longer carried this lease identity; left untouched' } : {};
      const done = await store.transition(lease.id, target.claimIn, target.finalStatus, { claimed_by: null, claim_expires_at: null, ...mismatch });
      if (done) {
        if (target.finalStatus === 'reaped') tally.summary.reaped++;
        else tally.summary.released++;
        ctx.log('info', `lease ${target.finalStatus}`, { lease_id: lease.id, machine: outcome });
        await store.appendEvent({ lease_id: lease.id, actor: me, kind: `lease.${target.finalStatus}`, data: { from: claimed.status, machine: outcome } });
      }
    }
  } catch (err) {
    keepClaim = true;
    const message = messageOf(err);
    tally.error({ lease_id: lease.id, provider: lease.provider, message });
    ctx.log('error', 'teardown failed: retried next pass', { lease_id: lease.id, provider: lease.provider, error: message });
    await store.appendEvent({ lease_id: lease.id, actor: me, kind: 'reaper.teardown_error', data: { provider: lease.provider, message } }).catch(() => undefined);
  } finally {
    clearInterval(heartbeat);
    // On failure the claim is kept until it lapses: a destroy that timed out may still be
    // running, and a second one must not start beside it. On success the transition cleared it.
    if (!keepClaim && !target.finalStatus) {
      await store.db.updateTable('leases').set({ claimed_by: null, claim_expires_at: null })
        .where('id', '=', lease.id).where('claimed_by', '=', me).execute().catch(() => undefined);
    }
  }
}

type MachineOutcome = 'destroyed' | 'already_gone' | 'mismatch' | 'nothing' | 'error';

async function destroyMachine(ctx: PassContext, target: Target, listing: Listing, tally: Tally): Promise<MachineOutcome> {
  const { store, settings } = ctx;
  const { lease } = target;
  const me = settings.reaperId;
  const machine = await store.getMachine(lease.id);
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
    if (settled || listed?.ok) {
      // Nothing of ours exists (or it was already settled): the record just catches up.
      if (machine && !settled) await store.setMachineState(lease.id, 'destroyed');
      return settled ? 'nothing' : 'already_gone';
    }
    tally.error({ lease_id: lease.id, provider: lease.provider, message: `cannot locate the machine: the store has no handle for it and the provider could not be listed (${listed ? listed.error : 'provider unavailable'})` });
    return 'error';
  }
  const provider = ctx.providers.get(lease.provider);
  if (!provider) {
    const why = ctx.unavailable.get(lease.provider) ?? 'no installed plugin has this id';
    tally.error({ lease_id: lease.id, provider: lease.provider, message: `[vmhub] [reaper] provider "${lease.provider}" is not available (${why}): install and configure it where the reaper runs` });
    ctx.log('error', 'provider not available for teardown', { lease_id: lease.id, provider: lease.provider, reason: why });
    return 'error';
  }
  if (machine && !settled) await store.setMachineState(lease.id, 'destroying');
  const outcomes: DestroyOutcome[] = [];
  for (const ref of refs) {
    const outcome = await withTimeout(provider.destroy(ref), settings.callTimeoutMs, `provider ${lease.provider} destroy(${ref.external_id})`);
    outcomes.push(outcome);
    if (outcome === 'destroyed') tally.summary.destroyed++;
    if (outcome === 'identity_mismatch') {
      tally.skip('identity_mismatch');
      ctx.log('warn', 'identity mismatch: machine left alone', { lease_id: lease.id, provider: lease.provider, external_id: ref.external_id, identity: lease.identity });
      await store.appendEvent({ lease_id: lease.id, actor: me, kind: 'machine.identity_mismatch', data: { provider: lease.provider, external_id: ref.external_id, node: ref.node, expected: lease.identity, reason: target.kind } });
    } else {
      ctx.log('info', outcome === 'destroyed' ? 'machine destroyed' : 'machine already gone', { lease_id: lease.id, provider: lease.provider, external_id: ref.external_id, reason: target.kind });
      await store.appendEvent({ lease_id: lease.id, actor: me, kind: target.kind === 'orphan' ? `orphan.${outcome}` : `machine.${outcome}`, data: { provider: lease.provider, external_id: ref.external_id, node: ref.node, outcome, reason: target.kind } });
    }
  }
  const ours = outcomes.some((o) => o !== 'identity_mismatch');
  const state = ours ? 'destroyed' : 'mismatch';
  if (machine) await store.setMachineState(lease.id, state);
  else {
    const ref = refs[0];
    await store.putMachine({ lease_id: lease.id, identity: lease.identity, provider: lease.provider, external_id: ref.external_id, node: ref.node ?? null, state, details: JSON.stringify(ref.details ?? {}) });
  }
  if (!ours) return 'mismatch';
  return outcomes.includes('destroyed') ? 'destroyed' : 'already_gone';
}

function rowRef(machine: MachineRow): MachineRef {
  let details: Record<string, unknown> = {};
  try { details = JSON.parse(machine.details); } catch { /* a corrupt details column must not block teardown */ }
  return { identity: machine.identity, external_id: machine.external_id!, ...(machine.node ? { node: machine.node } : {}), details };
}

function listedRef(m: OwnedMachine): MachineRef {
  return { identity: m.identity, external_id: m.external_id, ...(m.node ? { node: m.node } : {}), ...(m.details ? { details: m.details } : {}) };
}
