/**
 * state(): is the lease's VM still there and running? Found like destroy finds it (the node the
 * ref names, else by VMID in /cluster/resources, so a migrated VM is still found), read with
 * status/current, and trusted only when it carries the lease's identity tag: a VM with other tags
 * (the VMID reused, a forged identity) is 'gone' for this lease. `status: running` with QMP
 * `running` is 'running'; stopped, paused, suspended, prelaunch or an error state is 'stopped'.
 * A missing VM never throws; an unreachable endpoint does (NODE_UNAVAILABLE), so a lease is not
 * ended because the API could not be asked.
 */
import type { MachineRef, MachineState } from '@vmhub/core';
import { listGuests, splitTags } from './cluster.ts';
import { isForbidden, isGone, toVmhubError } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { identityTag } from './template-options.ts';
import type { VmAt } from './vm-steps.ts';

interface StatusCurrent {
  status: string;
  qmpstatus?: string;
  tags?: string;
}

/** QMP run states in which the guest does not run (query-status). */
const NOT_RUNNING = new Set(['paused', 'suspended', 'prelaunch', 'io-error', 'internal-error', 'shutdown', 'guest-panicked', 'watchdog', 'save-vm', 'restore-vm']);

function judge(st: StatusCurrent, tag: string): MachineState {
  if (!splitTags(st.tags).includes(tag)) return 'gone';
  if (st.status !== 'running') return 'stopped';
  return st.qmpstatus && NOT_RUNNING.has(st.qmpstatus) ? 'stopped' : 'running';
}

export async function machineState(rt: Runtime, machine: MachineRef): Promise<MachineState> {
  const vmid = Number(machine.external_id);
  if (!Number.isInteger(vmid) || vmid < 100) return 'gone';
  const tag = identityTag(machine.identity);
  const { client, node } = rt.locate(machine);
  const read = (vm: VmAt): Promise<StatusCurrent> => vm.client.get<StatusCurrent>(`/nodes/${vm.node}/qemu/${vm.vmid}/status/current`);
  // A 403 counts as absent only when /cluster/resources does not show the VMID either: with
  // pool-scoped rights a VM that left its pool (destroyed) reads as 403.
  const absent = (err: unknown): boolean => isGone(err) || isForbidden(err);
  for (const c of client ? [client] : rt.clients) {
    if (node) {
      try {
        return judge(await read({ client: c, node, vmid }), tag);
      } catch (err) {
        if (!absent(err)) throw toVmhubError(err, `reading the state of VM ${vmid}`);
      }
    }
    const guest = (await listGuests(c).catch((err: unknown) => { throw toVmhubError(err, `finding VM ${vmid}`); })).find((g) => g.vmid === vmid);
    if (!guest) continue;
    try {
      return judge(await read({ client: c, node: guest.node, vmid }), tag);
    } catch (err) {
      if (absent(err)) return 'gone';
      throw toVmhubError(err, `reading the state of VM ${vmid}`);
    }
  }
  return 'gone';
}
