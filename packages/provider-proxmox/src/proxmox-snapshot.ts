/**
 * snapshotSupport() and snapshot(): a PVE snapshot of the lease's VM with its RAM (`vmstate=1`),
 * taken while the VM runs (PVE pauses it briefly to save the last of its memory). Requests:
 * GET config (the lease's tag), GET snapshot (a snapshot of this identity already there — a
 * repeated request — is answered as is), POST snapshot {snapname, vmstate: 1, description},
 * the task polled, GET snapshot (what it became). A storage that cannot snapshot (plain LVM, raw
 * files on a directory) is CAPABILITY_UNAVAILABLE; a VM that no longer carries the lease's tag is
 * NOT_FOUND. `memory` is what PVE recorded (`vmstate`): false when the VM was not running.
 *
 * `size_bytes` is the RAM image: the VM's configured memory, what the state volume holds at most
 * (PVE reserves twice that plus 500 MiB on the storage, thin storages write what is used). The
 * disk part of a snapshot on thin storage starts at zero and grows as the VM diverges from it; the
 * API does not report it.
 */
import { VmhubError, type MachineRef, type SnapshotResult, type TemplateConfig } from '@vmhub/core';
import { splitTags } from './cluster.ts';
import { SOURCE } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { readSnapshots, snapDescription, snapName, snapshotRefOf, identityOf, type PveSnapshot } from './snapshot-records.ts';
import { identityTag } from './template-options.ts';
import { readConfig, withLockRetry, type VmAt } from './vm-steps.ts';
import { waitTask } from './tasks.ts';

/** Every Proxmox VM can: RAM and disk (whether its storage can is known only when asked). */
export function proxmoxSnapshotSupport(_template: TemplateConfig): { memory: boolean } {
  return { memory: true };
}

/** MiB of a config's `memory` (`2048` or `current=2048,…`). */
export function memoryMiB(value: unknown): number {
  const m = /(?:^|,)(?:current=)?(\d+)/.exec(String(value ?? ''));
  return m ? Number(m[1]) : 512;
}

/** The machine's VM, after checking it still carries the lease's identity tag (else NOT_FOUND). */
export async function leaseVm(rt: Runtime, machine: MachineRef, signal?: AbortSignal): Promise<{ vm: VmAt; config: Record<string, unknown> }> {
  const vm = rt.vm(machine);
  const config = await readConfig(vm, signal);
  if (!splitTags(config.tags as string | undefined).includes(identityTag(machine.identity))) {
    throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] VM ${vm.vmid} on ${vm.node} no longer carries the identity tag of ${machine.identity}`, { source: SOURCE, details: { vmid: vm.vmid } });
  }
  return { vm, config };
}

export async function takeSnapshot(rt: Runtime, machine: MachineRef, req: { identity: string; template: TemplateConfig; signal: AbortSignal }): Promise<SnapshotResult> {
  const { vm, config } = await leaseVm(rt, machine, req.signal);
  const snapname = snapName(req.identity);
  const mine = (list: PveSnapshot[]): PveSnapshot | undefined => list.find((s) => s.name === snapname && identityOf(s) === req.identity);
  const result = (snap: PveSnapshot): SnapshotResult => {
    const memory = snap.vmstate === 1 || snap.vmstate === true;
    return { ...snapshotRefOf(vm, snap, req.identity), memory, size_bytes: memory ? memoryMiB(config.memory) * 2 ** 20 : 0 };
  };
  const before = mine(await readSnapshots(vm, req.signal));
  if (before) return result(before);
  const what = `snapshot of VM ${vm.vmid}`;
  try {
    await withLockRetry(what, rt.steps(req.signal), async () => {
      const upid = await vm.client.post<string>(`/nodes/${vm.node}/qemu/${vm.vmid}/snapshot`, {
        snapname, vmstate: true, description: snapDescription(req.identity, machine.identity, req.template.id),
      }, { signal: req.signal });
      await waitTask(vm.client, upid, { ...rt.steps(req.signal).task, what });
    });
  } catch (err) {
    // A request repeated after a lost answer finds the name used by its own first try.
    const done = mine(await readSnapshots(vm, req.signal).catch(() => []));
    if (done) return result(done);
    if (VmhubError.is(err) && /snapshot feature is not available/i.test(err.message)) {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] VM ${vm.vmid} cannot be snapshot: a disk of it is on a storage without snapshots (plain LVM, raw files on a directory); use lvmthin, ZFS, Ceph RBD or qcow2 for the template's disks`, { source: SOURCE, details: err.details });
    }
    throw err;
  }
  const taken = mine(await readSnapshots(vm, req.signal));
  if (!taken) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] ${what}: the task ended OK but snapshot ${snapname} is not listed`, { source: SOURCE });
  rt.context.log('info', 'snapshot taken', { vmid: vm.vmid, node: vm.node, snapname, identity: req.identity, memory: taken.vmstate === 1 || taken.vmstate === true });
  return result(taken);
}
