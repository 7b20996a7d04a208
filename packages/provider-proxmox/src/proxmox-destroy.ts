/**
 * destroy(): re-read the VM (finding it by VMID across nodes if it moved), refuse one that does
 * not carry the lease's identity tag, else stop, purge and confirm it is gone. The lease's key is
 * dropped (unless `keepKey`: a restore moving the lease to a new VM); no channel is closed here,
 * since the provider holds none (core closes the session's).
 *
 * A VM that still holds vmhub snapshots is not deleted (that would delete them): it is stopped
 * and kept as their holder — its lease tag replaced by `vmhub-<instance>-snapshots`, so it is
 * no lease's machine any more (state() says gone, list() skips it) — until its last vmhub
 * snapshot is deleted (proxmox-snapshot-delete.ts). That answers 'destroyed': the lease's machine
 * is gone; what is left is snapshot storage. A VM that owns a workspace disk is kept the same way
 * as the workspace's holder; a workspace disk it only attached is detached first
 * (proxmox-workspace.ts).
 */
import { VmhubError, type DestroyOutcome, type MachineRef } from '@vmhub/core';
import { listGuests, splitTags } from './cluster.ts';
import { isForbidden, isGone, toVmhubError } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { identityTag } from './template-options.ts';
import { configure, readConfig, remove, stop, type VmAt } from './vm-steps.ts';
import { holderTag, identityOf, onVmInTurn, readSnapshots, vmhubSnapshots } from './snapshot-records.ts';
import { keepOrDetachWorkspace } from './proxmox-workspace.ts';

/** Stop the VM and make it its snapshots' holder, when it has vmhub snapshots; false when it has none. */
async function keepForSnapshots(rt: Runtime, vm: VmAt): Promise<boolean> {
  const prefix = rt.context.identityPrefix;
  const ours = vmhubSnapshots(await readSnapshots(vm), prefix);
  if (ours.length === 0) return false;
  await stop(vm, rt.steps());
  await configure(vm, {
    tags: holderTag(prefix),
    description: `Kept by vmhub for its snapshots (its lease has ended); destroyed with the last of them.\nsnapshots: ${ours.map((s) => identityOf(s)).join(' ')}`,
  }, rt.steps());
  return true;
}

export async function destroyVm(rt: Runtime, machine: MachineRef, o: { keepKey?: boolean } = {}): Promise<DestroyOutcome> {
  const log = rt.context.log;
  const tag = identityTag(machine.identity);
  let { client, node, vmid } = rt.locate(machine);
  // Find where the VM is now (it may have migrated, or the ref may lack the endpoint).
  const candidates = client ? [client] : rt.clients;
  let config: Record<string, unknown> | undefined;
  // A 403 is treated like "gone" only when /cluster/resources (which lists every VM the token
  // may audit) does not show the VMID either: with pool-scoped rights a destroyed VM reads as 403.
  const absent = (err: unknown): boolean => isGone(err) || isForbidden(err);
  for (const c of candidates) {
    if (node) {
      try {
        config = await readConfig({ client: c, node, vmid });
        client = c;
        break;
      } catch (err) {
        if (!absent(err)) throw toVmhubError(err, `reading VM ${vmid} before destroying it`);
      }
    }
    const guest = (await listGuests(c)).find((g) => g.vmid === vmid);
    if (guest) {
      node = guest.node;
      client = c;
      try {
        config = await readConfig({ client: c, node, vmid });
      } catch (err) {
        throw toVmhubError(err, `reading VM ${vmid} before destroying it`);
      }
      break;
    }
  }
  const forget = (): void => {
    if (!o.keepKey) rt.secrets.drop(machine.identity);
  };
  if (!config || !client || !node) {
    forget();
    return 'already_gone';
  }
  if (!splitTags(config.tags as string | undefined).includes(tag)) {
    log('warn', 'refusing to destroy a VM that does not carry this lease\'s identity tag', { vmid, node, expected: tag, found: config.tags ?? null });
    return 'identity_mismatch';
  }
  const vm: VmAt = { client, node, vmid };
  try {
    const held = await onVmInTurn(vm, async () => {
      // A workspace disk this VM owns keeps it as the workspace's holder; one it attached is detached.
      if (await keepOrDetachWorkspace(rt, vm, config)) return true;
      if (await keepForSnapshots(rt, vm)) return true;
      await stop(vm, rt.steps());
      await remove(vm, rt.steps());
      return false;
    });
    if (held) {
      forget();
      log('info', 'VM stopped and kept for its snapshots or workspace disk', { vmid, node, identity: machine.identity });
      return 'destroyed';
    }
  } catch (err) {
    if (isGone(err) || (VmhubError.is(err) && err.code === 'NOT_FOUND')) {
      forget();
      return 'already_gone';
    }
    throw toVmhubError(err, `destroying VM ${vmid}`);
  }
  forget();
  log('info', 'VM destroyed', { vmid, node, identity: machine.identity });
  return 'destroyed';
}
