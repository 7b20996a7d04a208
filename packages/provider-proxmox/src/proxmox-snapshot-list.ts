/**
 * listSnapshots(): the vmhub snapshots of this instance on every endpoint (the reaper's sweep):
 * for each VM carrying one of this instance's tags (a lease's VM or a holder), GET …/snapshot,
 * and every snapshot whose description's identity starts with the instance's prefix, with
 * `created_at` from its `snaptime`. A holder found holding no snapshot at all (left so by a crash
 * between two requests, or two deletes racing in different processes) is deleted here, since
 * nothing else would ever find it: it is this instance's by its tag and holds nothing of anyone's.
 * One that holds only snapshots not this instance's (an operator's) is left alone.
 */
import type { OwnedSnapshot } from '@vmhub/core';
import { listGuests, splitTags } from './cluster.ts';
import { isForbidden, isGone } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { holderTag, identityOf, onVmInTurn, readSnapshots, snapshotRefOf, vmhubSnapshots } from './snapshot-records.ts';
import { identityTag } from './template-options.ts';
import { remove, stop, type VmAt } from './vm-steps.ts';

export async function listProxmoxSnapshots(rt: Runtime): Promise<OwnedSnapshot[]> {
  const prefix = rt.context.identityPrefix;
  const prefixTag = identityTag(prefix);
  const holder = holderTag(prefix);
  const out: OwnedSnapshot[] = [];
  for (const client of rt.clients) {
    for (const g of await listGuests(client)) {
      const tags = splitTags(g.tags);
      if (!tags.some((t) => t.startsWith(prefixTag) && t.length > prefixTag.length)) continue;
      const vm: VmAt = { client, node: g.node, vmid: g.vmid };
      let ours;
      try {
        ours = vmhubSnapshots(await readSnapshots(vm), prefix);
      } catch (err) {
        if (isGone(err) || isForbidden(err)) continue; // deleted since the listing
        throw err;
      }
      for (const s of ours) {
        const owned: OwnedSnapshot = snapshotRefOf(vm, s, identityOf(s)!);
        if (typeof s.snaptime === 'number') owned.created_at = s.snaptime * 1000;
        out.push(owned);
      }
      if (ours.length === 0 && tags.includes(holder)) await sweepEmptyHolder(rt, vm);
    }
  }
  return out;
}

async function sweepEmptyHolder(rt: Runtime, vm: VmAt): Promise<void> {
  await onVmInTurn(vm, async () => {
    // In turn, and read again: a destroy() may just have made it a holder of new snapshots.
    if ((await readSnapshots(vm)).length > 0) return;
    await stop(vm, rt.steps());
    await remove(vm, rt.steps());
    rt.context.log('info', 'removed a snapshot holder VM that held no snapshot any more', { vmid: vm.vmid, node: vm.node });
  }).catch((e: Error) => rt.context.log('warn', 'could not remove an empty snapshot holder VM; the next listSnapshots tries again', { vmid: vm.vmid, node: vm.node, error: e.message }));
}
