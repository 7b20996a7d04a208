/**
 * restart(): the lease's VM rebooted by Proxmox, found and verified like every operation on it
 * (leaseVm: the VM must carry the lease's identity tag). Graceful: `POST
 * /nodes/{node}/qemu/{vmid}/status/reboot {timeout: REBOOT_TIMEOUT_S}` — PVE shuts the guest down
 * (through its guest agent when the VM has one configured, else ACPI) and starts it again, applying
 * pending configuration; a guest that has not shut down within the timeout fails that task and is
 * then reset. Hard: `POST …/status/reset` — the virtual machine's reset line, the disks kept. The
 * VM, its VMID, its disks and its tags stay; ready() then walks its stages again (start finds it
 * running; the agent answers once the guest is up again).
 */
import { VmhubError, type MachineRef, type RestartRequest } from '@vmhub/core';
import { leaseVm } from './proxmox-snapshot.ts';
import { isLock } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { waitTask } from './tasks.ts';
import { withLockRetry, type VmAt } from './vm-steps.ts';

/** How long PVE waits for the guest to shut down in a graceful reboot before that task fails. */
export const REBOOT_TIMEOUT_S = 60;

export function proxmoxRestartSupport(): { graceful: boolean } {
  return { graceful: true };
}

export async function restartVm(rt: Runtime, machine: MachineRef, req: RestartRequest): Promise<void> {
  const { vm } = await leaseVm(rt, machine, req.signal);
  const began = Date.now();
  if (!req.hard) {
    try {
      await power(rt, vm, 'reboot', { timeout: REBOOT_TIMEOUT_S }, req.signal);
      req.stage('reboot', 'done', `Proxmox rebooted VM ${vm.vmid} (status/reboot: shut down and started) in ${Date.now() - began} ms`);
      return;
    } catch (err) {
      if (req.signal.aborted || isLock(err) || (VmhubError.is(err) && err.code === 'POLICY_DENIED')) throw err;
      rt.context.log('warn', 'a graceful reboot failed: the VM is reset', { vmid: vm.vmid, node: vm.node, error: (err as Error).message });
      await power(rt, vm, 'reset', {}, req.signal);
      req.stage('reboot', 'done', `status/reboot failed (${(err as Error).message.replace(/^\[vmhub\] \[[^\]]+\] /, '')}): status/reset`);
      return;
    }
  }
  await power(rt, vm, 'reset', {}, req.signal);
  req.stage('reboot', 'done', `Proxmox reset VM ${vm.vmid} (status/reset)`);
}

/** POST status/reboot or status/reset, its task polled (lock retries as every step). */
async function power(rt: Runtime, vm: VmAt, action: 'reboot' | 'reset', params: Record<string, number>, signal: AbortSignal): Promise<void> {
  const what = `${action} of VM ${vm.vmid}`;
  const steps = rt.steps(signal);
  await withLockRetry(what, steps, async () => {
    const upid = await vm.client.post<string>(`/nodes/${vm.node}/qemu/${vm.vmid}/status/${action}`, params, { signal });
    await waitTask(vm.client, upid, { ...steps.task, timeoutMs: Math.max(steps.task.timeoutMs, (REBOOT_TIMEOUT_S + 30) * 1000), what });
  });
}

