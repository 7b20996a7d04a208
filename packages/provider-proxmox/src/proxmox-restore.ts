/**
 * restore(): put the lease's machine back to a snapshot. The snapshot's identity is read back
 * first (NOT_FOUND when it is gone or carries another; INVALID_REQUEST when it is of another
 * template), then:
 *
 * - the snapshot is of this very VM (the usual case: snapshot, try something, go back): the VM
 *   is checked to still carry the lease's tag, then `POST …/snapshot/{snapname}/rollback
 *   {start: 1}`, the task polled. PVE stops the VM, puts its disks and config back and, the
 *   snapshot holding RAM, resumes it where it was — running processes included; the MachineRef
 *   does not change.
 * - the snapshot is of another VM (another lease's, or a holder's): PVE cannot roll one VM back
 *   to another's snapshot, so a new VM is cloned from the snapshot for this lease (as a fork is,
 *   disk state only: it boots cold), made ready, and only then the old VM is destroyed (kept as a
 *   holder if it has snapshots of its own); the new MachineRef is returned. If the new VM does not
 *   become ready it is removed and the old one is left as it was, its pinned host key included.
 */
import type { MachineRef, SnapshotRef, TemplateConfig } from '@vmhub/core';
import { createVm } from './proxmox-create.ts';
import { destroyVm } from './proxmox-destroy.ts';
import { runReady } from './proxmox-ready.ts';
import { leaseVm } from './proxmox-snapshot.ts';
import { waitTask } from './tasks.ts';
import type { Runtime } from './runtime.ts';
import { assertTemplate, requireSnapshot } from './snapshot-records.ts';
import { remove, stop, withLockRetry } from './vm-steps.ts';

export async function restoreVm(rt: Runtime, machine: MachineRef, ref: SnapshotRef, o: { template: TemplateConfig; signal: AbortSignal }): Promise<MachineRef | void> {
  const { vm: at, snap } = await requireSnapshot(rt, ref, o.signal);
  assertTemplate(snap, ref, o.template.id);
  const target = rt.vm(machine);
  if (at.client === target.client && at.vmid === target.vmid) {
    const { vm } = await leaseVm(rt, machine, o.signal);
    const what = `rollback of VM ${vm.vmid} to snapshot ${snap.name}`;
    await withLockRetry(what, rt.steps(o.signal), async () => {
      const upid = await vm.client.post<string>(`/nodes/${vm.node}/qemu/${vm.vmid}/snapshot/${snap.name}/rollback`, { start: true }, { signal: o.signal });
      await waitTask(vm.client, upid, { ...rt.steps(o.signal).task, what });
    });
    rt.context.log('info', 'VM rolled back to its snapshot', { vmid: vm.vmid, node: vm.node, snapshot: ref.identity });
    return;
  }
  await leaseVm(rt, machine, o.signal);
  const prefix = rt.context.identityPrefix;
  const leaseId = machine.identity.startsWith(prefix) ? machine.identity.slice(prefix.length) : machine.identity;
  // The old VM's pinned host key is put back if the move fails: it stays the lease's machine.
  const keysBefore = rt.secrets.get(machine.identity);
  const putBack = (): void => {
    if (keysBefore) rt.secrets.put(machine.identity, keysBefore);
  };
  let fresh: MachineRef;
  try {
    fresh = await createVm(rt, { lease_id: leaseId, identity: machine.identity, template: o.template, signal: o.signal, from_snapshot: ref }, { replacing: true });
  } catch (err) {
    putBack();
    throw err;
  }
  try {
    await runReady(rt, fresh, { signal: o.signal, template: o.template, stage: () => undefined });
  } catch (err) {
    putBack();
    const made = rt.vm(fresh);
    await stop(made, rt.steps()).then(() => remove(made, rt.steps())).catch((e: Error) => rt.context.log('error', 'could not remove the VM a failed restore made: the reaper removes it by its tag', { vmid: fresh.external_id, error: e.message }));
    throw err;
  }
  const old = await destroyVm(rt, machine, { keepKey: true });
  rt.context.log('info', 'lease moved to a new VM cloned from the snapshot', { old_vmid: target.vmid, vmid: fresh.external_id, snapshot: ref.identity, old: old });
  return fresh;
}
