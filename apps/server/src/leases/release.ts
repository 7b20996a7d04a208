/**
 * Ending a lease from this process: release (idempotent; a release some other process started
 * and stopped mid-way is taken over once its claim lapses), and the teardowns it hands off — an
 * expired lease reaped now instead of at the reaper's next pass, a machine whose create was still
 * in flight when the release came. Every destroy verifies identity (teardown.ts). Once a machine
 * is gone, the workspace its lease held is measured again (in the background).
 */
import type { LeaseInfo, Provider } from '@vmhub/core';
import type { LeaseRow } from '@vmhub/store';
import { log } from '../log.ts';
import { measureAfterLease } from '../workspaces/attach.ts';
import { CLAIM_MS, type LeaseDeps } from './deps.ts';
import { destroyMachine } from './teardown.ts';
import { leaseView } from './view.ts';

/** Release `row` (already checked to be the caller's). */
export async function release(deps: LeaseDeps, row: LeaseRow): Promise<LeaseInfo> {
  const { store, actor } = deps;
  if (row.status === 'expired') { await reapExpired(deps, row.id); return leaseView((await store.getLease(row.id))!); }
  if (row.status === 'releasing') return finishRelease(deps, row);
  const releasing = await store.transition(row.id, ['provisioning', 'starting', 'ready'], 'releasing', { claimed_by: actor, claim_expires_at: Date.now() + CLAIM_MS });
  if (!releasing) {
    const now = (await store.getLease(row.id))!;
    return now.status === 'releasing' ? finishRelease(deps, now) : leaseView(now);
  }
  deps.provisioning.get(row.id)?.abort();
  await store.appendEvent({ lease_id: row.id, actor, kind: 'lease.releasing' });
  await deps.onEnd(row.id, 'released').catch(() => undefined);
  const machine = await store.getMachine(row.id);
  if (machine && machine.state === 'creating' && !machine.external_id && deps.provisioning.has(row.id)) {
    // our own create is still in flight: it sees 'releasing' and destroys what it made
    return leaseView(releasing);
  }
  return leaseView(await destroyReleasing(deps, row.id));
}

/** Tear down an expired lease now instead of waiting for the reaper's next pass (claim-guarded). */
export async function reapExpired(deps: LeaseDeps, leaseId: string): Promise<void> {
  const { store, actor } = deps;
  try {
    const claimed = await store.claim(leaseId, actor, Date.now() + CLAIM_MS, ['expired']);
    if (!claimed) return;
    const machine = await store.getMachine(leaseId);
    await destroyMachine(store, machine ? deps.registry.providers.get(machine.provider) : undefined, leaseId, actor, { from: 'expired', to: 'reaped' });
    remeasure(deps, leaseId);
  } catch (err) {
    log('warn', 'teardown of expired lease failed; the reaper will retry', { lease: leaseId, error: (err as Error).message });
  }
}

/** The lease was released while we were creating: whoever released it may have found no machine yet. */
export async function cleanupAfterRelease(deps: LeaseDeps, leaseId: string, provider: Provider | undefined): Promise<void> {
  try {
    await destroyMachine(deps.store, provider, leaseId, deps.actor, { from: 'releasing', to: 'released' });
  } catch (err) {
    log('warn', 'teardown after release failed; the reaper will retry', { lease: leaseId, error: (err as Error).message });
  }
}

/**
 * Destroy a releasing lease's machine and finish it as one store record: machine state,
 * `released` (under our claim; IDENTITY_MISMATCH if the machine is not ours), events.
 */
async function destroyReleasing(deps: LeaseDeps, leaseId: string): Promise<LeaseRow> {
  const machine = await deps.store.getMachine(leaseId);
  const provider = machine ? deps.registry.providers.get(machine.provider) : undefined;
  await destroyMachine(deps.store, provider, leaseId, deps.actor, { from: 'releasing', to: 'released' });
  remeasure(deps, leaseId);
  return (await deps.store.getLease(leaseId))!;
}

/**
 * A lease already `releasing`: whoever started the release may have died mid-way. Take the
 * teardown over when its claim lapsed (or it is ours and nothing of ours is still at it) and
 * finish it; otherwise say who is at it and until when.
 */
async function finishRelease(deps: LeaseDeps, row: LeaseRow): Promise<LeaseInfo> {
  if (deps.provisioning.has(row.id)) return { ...leaseView(row), note: 'this server is still creating the machine; it destroys it as soon as the create returns' };
  const claimed = await deps.store.claim(row.id, deps.actor, Date.now() + CLAIM_MS, ['releasing']);
  if (!claimed) {
    const now = (await deps.store.getLease(row.id))!;
    if (now.status !== 'releasing') return leaseView(now);
    const until = now.claim_expires_at ? new Date(now.claim_expires_at).toISOString() : 'soon';
    return { ...leaseView(now), note: `another process (${now.claimed_by ?? 'unknown'}) is tearing the machine down; if it stopped, its claim lapses at ${until} and the next vm_lease_release (or the reaper) finishes the release` };
  }
  const done = await destroyReleasing(deps, row.id);
  return { ...leaseView(done), ...(done.status === 'released' ? { note: 'an earlier release had stopped mid-way; this call finished it' } : {}) };
}

/** The workspace the lease held, measured now that its machine is gone (not waited for). */
function remeasure(deps: LeaseDeps, leaseId: string): void {
  deps.track(measureAfterLease(deps.store, (id) => deps.registry.providers.get(id), leaseId));
}
