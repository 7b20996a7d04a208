/**
 * list(): the VMs on every endpoint whose tag starts with this instance's identity prefix (the
 * reaper's orphan sweep); `created_at` derived from a running VM's uptime. A VM kept only for its
 * snapshots (tag `vmhub-<instance>-snapshots`) is no lease's machine: listSnapshots() covers it;
 * nor is a workspace's holder (tag `vmhub-<instance>-ws-<id>`: proxmox-workspace.ts).
 */
import type { OwnedMachine } from '@vmhub/core';
import { listGuests, splitTags } from './cluster.ts';
import { machineRef, type Runtime } from './runtime.ts';
import { identityTag } from './template-options.ts';
import { isSnapshotTag } from './snapshot-records.ts';
import { isWorkspaceTag } from './proxmox-workspace.ts';

export async function listOwned(rt: Runtime): Promise<OwnedMachine[]> {
  const prefix = rt.context.identityPrefix;
  const prefixTag = identityTag(prefix);
  const out = new Map<string, OwnedMachine>();
  for (const client of rt.clients) {
    const guests = await listGuests(client);
    for (const g of guests) {
      const tag = splitTags(g.tags).find((x) => x.startsWith(prefixTag) && x.length > prefixTag.length && !isSnapshotTag(x, prefix) && !isWorkspaceTag(x, prefix));
      if (!tag || out.has(tag)) continue;
      const owned: OwnedMachine = machineRef(client, g.node, g.vmid, prefix + tag.slice(prefixTag.length));
      if (g.status === 'running' && typeof g.uptime === 'number' && g.uptime > 0) owned.created_at = Date.now() - g.uptime * 1000;
      out.set(tag, owned);
    }
  }
  return [...out.values()];
}
