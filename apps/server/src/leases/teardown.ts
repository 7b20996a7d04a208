/**
 * Destroying one lease's machine: always through the provider, which re-reads the machine and
 * verifies the identity it carries; a mismatch is left alone and recorded. The outcome is
 * written by the store's `recordTeardowns` — the same record the reaper writes for its batches —
 * so the machine state, the events and the lease's final status follow one lifecycle.
 */
import type { DestroyOutcome, MachineRef, Provider } from '@vmhub/core';
import { foldDestroys, listedRef, machineRef, type LeaseStatus, type Store, type TeardownEvent } from '@vmhub/store';

/** The store's rule for a row without external_id (no handle: callers locate it by identity). */
export { machineRef };

export type TeardownOutcome = DestroyOutcome | 'no_machine';

/** The lease's final move once its machine is gone; applied only while this process holds its claim. */
export interface FinalTransition {
  from: LeaseStatus;
  to: LeaseStatus;
}

/**
 * Destroy the machine of `leaseId` and record the outcome; with `final`, also finish the lease
 * in the same transaction (under the caller's claim; an identity mismatch finishes with
 * IDENTITY_MISMATCH, as the reaper does). A machine row with no handle is located by its
 * identity through `provider.list()`; if nothing carries it there, it is `already_gone`. Throws
 * when the provider is missing or cannot be listed or destroy fails: the work is left to the
 * reaper, and the claim to lapse.
 */
export async function destroyMachine(store: Store, provider: Provider | undefined, leaseId: string, actor: string, final?: FinalTransition): Promise<TeardownOutcome> {
  const row = await store.getMachine(leaseId);
  if (!row || row.state === 'destroyed') {
    if (final) await store.recordTeardowns(actor, [{ lease_id: leaseId, outcome: 'no_machine', final }]);
    return 'no_machine';
  }
  if (!provider) throw new Error(`provider "${row.provider}" is not loaded; the reaper will destroy ${row.identity}`);
  await store.setMachineState(leaseId, 'destroying');
  const refs = await handles(provider, row.identity, machineRef(row));
  const events: TeardownEvent[] = [];
  const outcomes: DestroyOutcome[] = [];
  for (const ref of refs) {
    const outcome = await provider.destroy(ref);
    outcomes.push(outcome);
    events.push({ kind: `machine.${outcome}`, data: { identity: row.identity, external_id: ref.external_id } });
  }
  const { outcome, machine } = foldDestroys(outcomes);
  if (outcomes.length === 0) events.push({ kind: 'machine.already_gone', data: { identity: row.identity, external_id: null, located: 'list' } });
  await store.recordTeardowns(actor, [{
    lease_id: leaseId, outcome, machine, events,
    // No final move: the caller finishes the lease itself (or it is already final), so keep its claim.
    ...(final ? { final } : { keepClaim: true }),
  }]);
  return outcome;
}

/** The stored handle, or — when the row has none — whatever the provider lists carrying the identity. */
async function handles(provider: Provider, identity: string, stored: MachineRef | undefined): Promise<MachineRef[]> {
  if (stored) return [stored];
  const listed = await provider.list();
  return listed.filter((m) => m.identity === identity).map(listedRef);
}
