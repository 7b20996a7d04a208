/**
 * create(): place, clone, tag and key a VM for a lease. Idempotent per identity: a VM already
 * carrying the lease's tag is returned. A clone left untagged by a failed configure is removed at
 * once (the reaper could not find it), and stray clones of ambiguous attempts are swept. With
 * `from_snapshot` (a fork) the clone is a full clone of the snapshot on its VM's node
 * (proxmox-fork.ts); `replacing` (restore onto a machine that is not the snapshot's) makes a new
 * VM for a lease whose machine still exists: no idempotency by tag, and the lease's key pair is
 * kept (its pinned host key forgotten: the new VM makes its own) and never dropped on failure.
 * A fork's MachineRef carries `details.forked_from` (the snapshot's identity): readiness then
 * replaces the source lease's key on its disk with this lease's (proxmox-fork-keys.ts).
 */
import { VmhubError, type CreateRequest, type MachineRef } from '@vmhub/core';
import { cloneTemplate, sweepStrays, type CloneSpec } from './clone.ts';
import { choosePlacement, listGuests, splitTags, type Placement, type VmResource } from './cluster.ts';
import { encodeSshKeys, generateLeaseKeyPair } from './keys.ts';
import type { Params, PveClient } from './pve-client.ts';
import { machineRef, type Runtime } from './runtime.ts';
import { identityTag, templateOptions, vmName } from './template-options.ts';
import { configure, remove, type VmAt } from './vm-steps.ts';
import { forkSource } from './proxmox-fork.ts';
import { isPveApiError, SOURCE } from './pve-errors.ts';
import type { LeaseKeyPair } from './keys.ts';
import { workspaceParams } from './proxmox-workspace.ts';

async function findByIdentity(rt: Runtime, identity: string): Promise<{ client: PveClient; guest: VmResource } | undefined> {
  const tag = identityTag(identity);
  for (const client of rt.clients) {
    const guests = await listGuests(client);
    const guest = guests.find((g) => splitTags(g.tags).includes(tag));
    if (guest) return { client, guest };
  }
  return undefined;
}

/** The lease's key pair: a new one, or (replacing its machine) the one it has, without the old VM's host key. */
function leaseKeys(rt: Runtime, req: CreateRequest, replacing: boolean): LeaseKeyPair {
  const had = replacing ? rt.secrets.get(req.identity) : undefined;
  if (had) {
    const { hostKey: _old, ...keys } = had;
    return keys;
  }
  return generateLeaseKeyPair(`vmhub-${req.lease_id}`);
}

export async function createVm(rt: Runtime, req: CreateRequest, o: { replacing?: boolean } = {}): Promise<MachineRef> {
  const log = rt.context.log;
  const t = templateOptions(req.template);
  const tag = identityTag(req.identity);
  const replacing = o.replacing === true;
  if (!replacing) {
    const existing = await findByIdentity(rt, req.identity).catch(() => undefined);
    // A fork found again is marked again: readiness must still replace its keys.
    if (existing) return machineRef(existing.client, existing.guest.node, existing.guest.vmid, req.identity, req.from_snapshot ? { forked_from: req.from_snapshot.identity } : {});
  }

  const minFree = t.min_free_memory_mb ?? req.template.resources?.memory_mb ?? 0;
  const fork = req.from_snapshot;
  const place: Placement & { snapname?: string } = fork ? await forkSource(rt, fork, req.template, req.signal) : await choosePlacement(rt.clients, req.template.golden, t, minFree, req.signal);
  const keys = leaseKeys(rt, req, replacing);
  rt.secrets.put(req.identity, keys);
  const forget = (): void => {
    if (!replacing) rt.secrets.drop(req.identity);
  };
  const steps = rt.steps(req.signal);
  const spec: CloneSpec = {
    node: place.node, templateVmid: place.templateVmid, snapname: place.snapname, name: vmName(req.identity), identity: req.identity, tag,
    description: `Managed by vmhub; destroyed when the lease ends.\nidentity: ${req.identity}\nlease: ${req.lease_id}\ntemplate: ${req.template.id}${fork ? `\nfrom snapshot: ${fork.identity}` : ''}\ncreated: ${new Date().toISOString()}`,
    full: fork ? true : t.full_clone, storage: t.storage, pool: t.pool, attempts: rt.options.lock_retries + 1, retryBaseMs: rt.options.retry_base_ms, task: steps.task, strays: [],
  };
  const sweep = async (): Promise<void> => {
    if (spec.strays.length === 0) return;
    const settle = Math.min(2 * rt.options.request_timeout_ms, 35_000);
    await sweepStrays(place.client, spec, settle, (vmid) => remove({ client: place.client, node: place.node, vmid }, rt.steps()))
      .catch((e: Error) => log('error', 'could not remove a stray clone of this lease: the reaper will find it by its tag', { node: place.node, error: e.message }));
  };
  let vmid: number;
  try {
    vmid = await cloneTemplate(place.client, spec);
  } catch (err) {
    await sweep();
    forget();
    if (fork && ((VmhubError.is(err) && /Full clone feature is not supported/i.test(err.message)) || (isPveApiError(err) && /Full clone feature is not supported/i.test(err.text)))) {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] a fork of snapshot ${fork.identity} cannot be cloned: its storage cannot copy a snapshot (ZFS); keep the template's disks on lvmthin, Ceph RBD or qcow2 to fork`, { source: SOURCE });
    }
    throw err;
  }
  // Strays are looked at again while this lease's clone is configured.
  const swept = sweep();
  const vm: VmAt = { client: place.client, node: place.node, vmid };
  const params: Params = {
    tags: tag,
    ciuser: t.ciuser ?? rt.options.ciuser,
    sshkeys: encodeSshKeys([keys.publicKey]),
    ipconfig0: t.ipconfig0,
  };
  if (req.template.resources?.cpus !== undefined) params.cores = Math.max(1, Math.ceil(req.template.resources.cpus));
  if (req.template.resources?.memory_mb !== undefined) params.memory = String(req.template.resources.memory_mb);
  try {
    // The workspace's disk: a new one this VM owns, or the holder VM's attached (proxmox-workspace.ts).
    if (req.workspace) Object.assign(params, await workspaceParams(rt, place.client, place.node, req.template, req.workspace, tag));
    await configure(vm, params, steps);
  } catch (err) {
    // The clone is ours (we just made it) but untagged: remove it now, the reaper could not find it.
    log('warn', 'configuring the clone failed; removing it', { vmid, node: place.node, error: (err as Error).message });
    // Tag it first on its own (a failed configure may have lost the tag with the rest), so that if
    // removing fails too the reaper finds it by its identity; then remove, a few times.
    await place.client.put(`/nodes/${place.node}/qemu/${vmid}/config`, { tags: tag }).catch(() => undefined);
    for (let attempt = 1; ; attempt++) {
      try {
        await remove(vm, rt.steps());
        break;
      } catch (e) {
        if (attempt < 3) continue;
        log('error', 'could not remove the clone after a failed configure: the reaper removes it by its tag, else remove it by hand', { vmid, node: place.node, error: (e as Error).message });
        break;
      }
    }
    await swept;
    forget();
    throw err;
  }
  await swept;
  log('info', 'clone created', { vmid, node: place.node, endpoint: place.client.endpoint.id, identity: req.identity, ...(fork ? { from_snapshot: fork.identity } : {}) });
  return machineRef(place.client, place.node, vmid, req.identity, fork ? { source_vmid: place.templateVmid, snapname: place.snapname, forked_from: fork.identity } : { template_vmid: place.templateVmid });
}
