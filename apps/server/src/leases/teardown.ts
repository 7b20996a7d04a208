/**
 * Destroying a lease's machine: always through the provider, which re-reads the machine and
 * verifies the identity it carries. A mismatch is left alone and recorded.
 */
import type { MachineRef, Provider } from '@vmhub/core';
import type { MachineRow, Store } from '@vmhub/store';

export function machineRef(row: MachineRow): MachineRef {
  const ref: MachineRef = { identity: row.identity, external_id: row.external_id ?? '' };
  if (row.node) ref.node = row.node;
  try { const d = JSON.parse(row.details); if (d && Object.keys(d).length) ref.details = d; } catch { /* details are optional */ }
  return ref;
}

export async function destroyMachine(store: Store, provider: Provider | undefined, leaseId: string, actor: string): Promise<'destroyed' | 'already_gone' | 'identity_mismatch' | 'no_machine'> {
  const row = await store.getMachine(leaseId);
  if (!row || row.state === 'destroyed') return 'no_machine';
  if (!provider) throw new Error(`provider "${row.provider}" is not loaded; the reaper will destroy ${row.identity}`);
  await store.setMachineState(leaseId, 'destroying');
  const outcome = await provider.destroy(machineRef(row));
  await store.setMachineState(leaseId, outcome === 'identity_mismatch' ? 'mismatch' : 'destroyed');
  await store.appendEvent({ lease_id: leaseId, actor, kind: `machine.${outcome}`, data: { identity: row.identity, external_id: row.external_id } });
  return outcome;
}
