/**
 * deleteSnapshot(): read the snapshot back from its VM (GET …/snapshot) and delete it only when
 * its description carries the ref's identity: gone VM or snapshot → 'already_gone', another
 * identity → 'identity_mismatch' (left alone, logged). Then either `DELETE …/snapshot/{snapname}`
 * (task polled), or — when the VM is a holder (its lease ended) and this is the last snapshot it
 * holds — the holder VM itself is deleted (purge), which takes the snapshot with it:
 * no empty holder is left between two requests. Decisions on one VM are taken in turn with
 * destroy()'s (onVmInTurn).
 */
import type { DestroyOutcome, SnapshotRef } from '@vmhub/core';
import { splitTags } from './cluster.ts';
import type { Runtime } from './runtime.ts';
import { findSnapshot, holderTag, onVmInTurn } from './snapshot-records.ts';
import { waitTask } from './tasks.ts';
import { isGone, toVmhubError } from './pve-errors.ts';
import { readConfig, remove, stop, withLockRetry } from './vm-steps.ts';

export async function deleteProxmoxSnapshot(rt: Runtime, ref: SnapshotRef): Promise<DestroyOutcome> {
  const log = rt.context.log;
  const first = await findSnapshot(rt, ref);
  if (first.kind === 'gone') return 'already_gone';
  if (first.kind === 'mismatch') {
    log('warn', 'refusing to delete a Proxmox snapshot that does not carry the expected identity', { external_id: ref.external_id, expected: ref.identity, found: first.found ?? null });
    return 'identity_mismatch';
  }
  return onVmInTurn(first.vm, async () => {
    // Read again in turn: a destroy() or another delete may have changed the VM meanwhile.
    const f = await findSnapshot(rt, ref);
    if (f.kind !== 'found') return f.kind === 'gone' ? 'already_gone' : 'identity_mismatch';
    const { vm, snap, all } = f;
    const config = await readConfig(vm);
    const holder = splitTags(config.tags as string | undefined).includes(holderTag(rt.context.identityPrefix));
    // Any other snapshot keeps the holder: one not ours (an operator's) is not ours to delete.
    const others = all.filter((s) => s.name !== snap.name);
    try {
      if (holder && others.length === 0) {
        await stop(vm, rt.steps());
        await remove(vm, rt.steps());
        log('info', 'last snapshot deleted with the VM that held it', { vmid: vm.vmid, node: vm.node, identity: ref.identity });
        return 'destroyed';
      }
      const what = `deleting snapshot ${snap.name} of VM ${vm.vmid}`;
      await withLockRetry(what, rt.steps(), async () => {
        const upid = await vm.client.delete<string>(`/nodes/${vm.node}/qemu/${vm.vmid}/snapshot/${snap.name}`);
        await waitTask(vm.client, upid, { ...rt.steps().task, what });
      });
    } catch (err) {
      if (isGone(err) || /does not exist/i.test((err as Error).message)) return 'already_gone';
      throw toVmhubError(err, `deleting snapshot ${ref.identity}`);
    }
    log('info', 'snapshot deleted', { vmid: vm.vmid, node: vm.node, snapname: snap.name, identity: ref.identity });
    return 'destroyed';
  });
}
