/**
 * Where a fork (create with `from_snapshot`) is cloned from: the VM holding the snapshot — the
 * source lease's VM or, once that lease ended, its holder — on that VM's node, after reading the
 * snapshot's identity back (NOT_FOUND when it is gone or carries another). The clone is a full
 * copy of the snapshot's disks and config, never its RAM: a fork boots cold from the snapshot's
 * disk state, with new MACs, SMBIOS UUID and vmgenid (PVE's clone) and a new cloud-init instance
 * (its config changed), so it does not share the source's RNG state. ZFS cannot copy a snapshot
 * (`Full clone feature is not supported`): CAPABILITY_UNAVAILABLE. A snapshot of another template
 * than the fork's is INVALID_REQUEST.
 */
import type { SnapshotRef, TemplateConfig } from '@vmhub/core';
import type { Placement } from './cluster.ts';
import type { Runtime } from './runtime.ts';
import { assertTemplate, requireSnapshot } from './snapshot-records.ts';

export async function forkSource(rt: Runtime, ref: SnapshotRef, template: TemplateConfig, signal?: AbortSignal): Promise<Placement & { snapname: string }> {
  const { vm, snap } = await requireSnapshot(rt, ref, signal);
  assertTemplate(snap, ref, template.id);
  return { client: vm.client, node: vm.node, templateVmid: vm.vmid, snapname: snap.name };
}
