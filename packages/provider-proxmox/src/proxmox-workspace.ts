/**
 * Workspaces as Proxmox disks kept by a holder VM. A volume's name carries its owner's VMID
 * (`<storage>:vm-<vmid>-disk-<n>`) and cannot be renamed across clones, and a lease's VMID is new
 * each time, so the identity is carried by a tag instead: the workspace's identity tag
 * (`vmhub-<instance>-ws-<id>`) marks the VM that OWNS the disk. The first lease with a workspace
 * gets a new disk on its own VM (`virtio9: <storage>:<size>,serial=vmhub-ws`) and the tag; when
 * that lease ends its VM is not deleted but stopped and kept as the workspace's holder (its lease
 * tag dropped, like a snapshot holder), its VMID reserved for good. Later leases attach the
 * holder's volume by its id to their own VM; qemu-server never frees a volume another VM owns,
 * and destroy() detaches it anyway before the VM is purged. Deleting the workspace (a person's
 * act) deletes the holder VM, with purge, after reading its tag back.
 *
 * list() skips the holder (its tag is in the instance's `ws-` namespace), so neither the reaper's
 * sweep nor anything else of vmhub's removes it. The guest must mount the disk itself (by its
 * serial, /dev/disk/by-id/virtio-vmhub-ws, at the template's workspace_path), formatting it when
 * blank: template option `workspace_disk: true` says the golden does. The holder stays on its
 * node: a lease with a workspace is placed where it is only if its storage is shared; otherwise
 * the attach fails with the node named.
 */
import { VmhubError, type DestroyOutcome, type TemplateConfig, type WorkspaceRef } from '@vmhub/core';
import { listGuests, splitTags } from './cluster.ts';
import type { Params, PveClient } from './pve-client.ts';
import { SOURCE } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { identityTag, templateOptions } from './template-options.ts';
import { configure, readConfig, remove, stop, type VmAt } from './vm-steps.ts';

/** The config key of the workspace disk on a lease's VM. */
export const WORKSPACE_KEY = 'virtio9';
const SERIAL = 'vmhub-ws';
const DEFAULT_SIZE_GB = 8;

/** Tags in this instance's workspace namespace name no lease's machine (list() skips them). */
export function isWorkspaceTag(tag: string, prefix: string): boolean {
  return tag.startsWith(`${identityTag(prefix)}ws-`);
}

export function proxmoxWorkspaceSupport(template: TemplateConfig): { path: string } | string {
  const t = templateOptions(template);
  if (!t.workspace_disk) return 'its golden does not mount a workspace disk (template provider_options.workspace_disk: the guest mounts /dev/disk/by-id/virtio-vmhub-ws at workspace_path)';
  const user = t.agent_user ?? t.ciuser ?? 'vmhub';
  return { path: template.workspace_path ?? (user === 'root' ? '/root' : `/home/${user}`) };
}

async function findHolder(rt: Runtime, ws: WorkspaceRef): Promise<(VmAt & { tags: string[] }) | undefined> {
  const tag = identityTag(ws.identity);
  for (const client of rt.clients) {
    const guest = (await listGuests(client)).find((g) => splitTags(g.tags).includes(tag));
    if (guest) return { client, node: guest.node, vmid: guest.vmid, tags: splitTags(guest.tags) };
  }
  return undefined;
}

/**
 * What the lease's VM config gets for its workspace: a new disk (and the workspace's tag: this VM
 * owns it) when no VM holds one yet, else the holder's volume.
 */
export async function workspaceParams(rt: Runtime, client: PveClient, node: string, template: TemplateConfig, ws: WorkspaceRef, leaseTag: string): Promise<Params> {
  const holder = await findHolder(rt, ws);
  if (!holder) {
    const t = templateOptions(template);
    const storage = t.workspace_storage ?? t.storage ?? 'local-lvm';
    return { tags: `${leaseTag};${identityTag(ws.identity)}`, [WORKSPACE_KEY]: `${storage}:${t.workspace_size_gb ?? DEFAULT_SIZE_GB},serial=${SERIAL}` };
  }
  if (holder.client.endpoint.id !== client.endpoint.id || holder.node !== node) {
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] workspace ${ws.name} is kept by VM ${holder.vmid} on node ${holder.node}, and this lease's VM is on ${node}: restrict the template to that node (provider_options.nodes) or keep workspaces on shared storage`, { source: SOURCE });
  }
  const volume = String((await readConfig(holder))[WORKSPACE_KEY] ?? '').split(',')[0];
  if (!/^[^:]+:vm-\d+-disk-\d+$/.test(volume ?? '')) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] VM ${holder.vmid} carries workspace ${ws.identity} but no ${WORKSPACE_KEY} volume of its own`, { source: SOURCE });
  return { [WORKSPACE_KEY]: `${volume},serial=${SERIAL}` };
}

/**
 * Before a lease's VM is deleted (it is stopped): a workspace disk it owns makes it the holder —
 * kept, its lease tag dropped (true); one it only attached is detached (false: delete it).
 */
export async function keepOrDetachWorkspace(rt: Runtime, vm: VmAt, config: Record<string, unknown>): Promise<boolean> {
  const disk = String(config[WORKSPACE_KEY] ?? '');
  if (!disk) return false;
  const prefix = rt.context.identityPrefix;
  const wsTag = splitTags(config.tags as string | undefined).find((x) => isWorkspaceTag(x, prefix));
  await stop(vm, rt.steps());
  if (wsTag && new RegExp(`:vm-${vm.vmid}-disk-\\d+`).test(disk)) {
    await configure(vm, { tags: wsTag, description: `Kept by vmhub: it holds the disk of workspace ${wsTag} (deleted only by a person: vmhub-server workspaces rm).` }, rt.steps());
    return true;
  }
  await configure(vm, { delete: WORKSPACE_KEY }, rt.steps());
  return false;
}

/** Delete the holder VM (and with it the disk) after reading its tag back. */
export async function deleteWorkspaceHolder(rt: Runtime, ws: WorkspaceRef): Promise<DestroyOutcome> {
  const holder = await findHolder(rt, ws);
  if (!holder) return 'already_gone';
  const prefix = identityTag(rt.context.identityPrefix);
  if (holder.tags.some((x) => x.startsWith(prefix) && !isWorkspaceTag(x, rt.context.identityPrefix))) {
    throw new VmhubError('LOCK_CONTENTION', `[vmhub] [${SOURCE}] workspace ${ws.identity}'s disk belongs to VM ${holder.vmid}, still a lease's machine: release that lease first`, { source: SOURCE });
  }
  await stop(holder, rt.steps());
  await remove(holder, rt.steps());
  return 'destroyed';
}

/** The disk's provisioned size (`size=` in the holder's config), in bytes. */
export async function workspaceDiskBytes(rt: Runtime, ws: WorkspaceRef): Promise<number | undefined> {
  const holder = await findHolder(rt, ws);
  if (!holder) return undefined;
  const m = /size=(\d+(?:\.\d+)?)([KMGT])?/.exec(String((await readConfig(holder))[WORKSPACE_KEY] ?? ''));
  if (!m) return undefined;
  return Math.round(Number(m[1]) * 1024 ** ({ K: 1, M: 2, G: 3, T: 4 }[m[2] ?? ''] ?? 0));
}
