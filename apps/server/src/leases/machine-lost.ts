/**
 * A machine that vanished behind vmhub's back (`docker rm -f`, `docker stop`, a VM shut down from
 * the hypervisor) must not leave its lease "ready" with every call answering a retryable error.
 * When a call on a ready lease fails, and when vm_lease_status reads a ready lease, the provider
 * is asked whether the machine is still running (`state()`, re-read by identity; without it, a
 * machine absent from `list()` is gone). If not, the lease moves ready → failed with
 * MACHINE_LOST, the event is recorded, its session ends, and what is left of the machine is
 * destroyed; the caller answers the non-retryable MACHINE_LOST.
 */
import { VmhubError, type MachineState, type Provider } from '@vmhub/core';
import { machineRef, type LeaseRow, type Store } from '@vmhub/store';
import { log } from '../log.ts';
import { destroyMachine } from './teardown.ts';

export interface LostDeps {
  store: Store;
  provider(id: string): Provider | undefined;
  actor: string;
  /** End the lease's session in this process. */
  end(leaseId: string, reason: string): Promise<void>;
}

/** The error a call on a lease whose machine was lost answers. */
export function machineLostError(row: Pick<LeaseRow, 'id' | 'error_message'>): VmhubError {
  return new VmhubError('MACHINE_LOST', `lease ${row.id}: ${row.error_message ?? 'its machine was lost'}`);
}

async function stateOf(provider: Provider, ref: NonNullable<ReturnType<typeof machineRef>>, useList: boolean): Promise<MachineState | undefined> {
  if (provider.state) return provider.state(ref);
  if (!useList) return undefined;
  return (await provider.list()).some((m) => m.identity === ref.identity) ? 'running' : 'gone';
}

/**
 * Check a ready lease's machine; resolves MACHINE_LOST (after ending the lease) when it is gone
 * or stopped, else undefined. `useList`: fall back to list() for providers without state() —
 * done after a failed call, not on every status poll. Never throws: an unreachable provider
 * proves nothing.
 */
export async function checkMachine(deps: LostDeps, row: LeaseRow, useList: boolean): Promise<VmhubError | undefined> {
  if (row.status !== 'ready') return undefined;
  let state: MachineState | undefined;
  let provider: Provider | undefined;
  try {
    const machine = await deps.store.getMachine(row.id);
    const ref = machine ? machineRef(machine) : undefined;
    provider = machine ? deps.provider(machine.provider) : undefined;
    if (!ref || !provider) return undefined;
    state = await stateOf(provider, ref, useList);
  } catch (err) {
    log('debug', 'machine state unknown; not treated as lost', { lease: row.id, error: (err as Error).message });
    return undefined;
  }
  if (state === undefined || state === 'running') return undefined;
  const message = state === 'gone' ? 'its machine was removed outside vmhub; the lease has ended' : 'its machine was stopped outside vmhub; the lease has ended and the machine is destroyed';
  const failed = await deps.store.transition(row.id, ['ready'], 'failed', { error_code: 'MACHINE_LOST', error_message: message, claimed_by: null, claim_expires_at: null });
  if (!failed) {
    const now = await deps.store.getLease(row.id);
    return now?.error_code === 'MACHINE_LOST' ? machineLostError(now) : undefined;
  }
  await deps.store.appendEvent({ lease_id: row.id, actor: deps.actor, kind: 'machine.lost', data: { state } });
  log('warn', 'machine lost: lease failed', { lease: row.id, state });
  await deps.end(row.id, 'machine lost').catch(() => undefined);
  // A stopped machine still holds its resources; a removed one answers already_gone.
  await destroyMachine(deps.store, provider, row.id, deps.actor).catch((err) => log('warn', 'teardown of a lost machine failed; the reaper will retry', { lease: row.id, error: (err as Error).message }));
  return machineLostError(failed);
}
