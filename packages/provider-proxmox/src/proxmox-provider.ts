/**
 * The proxmox provider's methods, wired from one file per role. Any API failure that escapes a
 * step still leaves as a mapped VmhubError (POLICY_DENIED, LOCK_CONTENTION, …), never INTERNAL.
 */
import type { CreateRequest, MachineRef, ProviderMethods, ReadyRequest, RestartRequest, SnapshotRef, TemplateConfig, WorkspaceRef } from '@vmhub/core';
import { openChannel } from './proxmox-channel.ts';
import { connectPort } from './proxmox-connect.ts';
import { createVm } from './proxmox-create.ts';
import { destroyVm } from './proxmox-destroy.ts';
import { listOwned } from './proxmox-list.ts';
import { runReady } from './proxmox-ready.ts';
import { machineState } from './proxmox-state.ts';
import { proxmoxSshAccess } from './proxmox-ssh-access.ts';
import { proxmoxSnapshotSupport, takeSnapshot } from './proxmox-snapshot.ts';
import { restoreVm } from './proxmox-restore.ts';
import { proxmoxRestartSupport, restartVm } from './proxmox-restart.ts';
import { proxmoxStats } from './proxmox-stats.ts';
import { deleteProxmoxSnapshot } from './proxmox-snapshot-delete.ts';
import { listProxmoxSnapshots } from './proxmox-snapshot-list.ts';
import { deleteWorkspaceHolder, proxmoxWorkspaceSupport, workspaceDiskBytes } from './proxmox-workspace.ts';
import { providerStatus } from './proxmox-status.ts';
import { toVmhubError } from './pve-errors.ts';
import { templateAvailability } from './rights.ts';
import type { Runtime } from './runtime.ts';

const guard = <A extends unknown[], R>(what: string, fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
  try {
    return await fn(...args);
  } catch (err) {
    throw toVmhubError(err, what);
  }
};

export function providerMethods(rt: Runtime): ProviderMethods & { callCounts(): Record<string, number> } {
  return {
    status: () => providerStatus(rt),
    availability: (template: TemplateConfig) => templateAvailability(rt, template),
    create: guard('create', (req: CreateRequest) => createVm(rt, req)),
    ready: guard('ready', (machine: MachineRef, req: ReadyRequest) => runReady(rt, machine, req)),
    destroy: guard('destroy', (machine: MachineRef) => destroyVm(rt, machine)),
    list: guard('list', () => listOwned(rt)),
    state: guard('state', (machine: MachineRef) => machineState(rt, machine)),
    // A new channel per call: core opens one per lease session and closes it.
    channel: guard('channel', (machine: MachineRef, template: TemplateConfig) => openChannel(rt, machine, template)),
    connect: guard('connect', (machine: MachineRef, port: number, o: { template: TemplateConfig; signal?: AbortSignal }) => connectPort(rt, machine, port, o.template, o.signal)),
    // The lease's key and pinned host key, as the SSH channel uses them (a person's way in: vmhub-server leases ssh).
    sshAccess: async (machine: MachineRef, o: { template: TemplateConfig }) => proxmoxSshAccess(rt, machine, o.template),
    pinSshHostKey: async (machine: MachineRef, fingerprint: string) => rt.secrets.pinHostKey(machine.identity, fingerprint),
    // Snapshots: PVE snapshots with RAM; kept past their lease by keeping the VM as their holder (snapshot-records.ts).
    snapshotSupport: (template: TemplateConfig) => proxmoxSnapshotSupport(template),
    snapshot: guard('snapshot', (machine: MachineRef, req: { identity: string; template: TemplateConfig; signal: AbortSignal }) => takeSnapshot(rt, machine, req)),
    restore: guard('restore', (machine: MachineRef, snapshot: SnapshotRef, o: { template: TemplateConfig; signal: AbortSignal }) => restoreVm(rt, machine, snapshot, o)),
    deleteSnapshot: guard('deleteSnapshot', (snapshot: SnapshotRef) => deleteProxmoxSnapshot(rt, snapshot)),
    listSnapshots: guard('listSnapshots', () => listProxmoxSnapshots(rt)),
    // Restart in place (status/reboot, else status/reset) and the VM's figures (status/current); no console log (docs/providers/proxmox.md).
    restartSupport: () => proxmoxRestartSupport(),
    restart: guard('restart', (machine: MachineRef, req: RestartRequest) => restartVm(rt, machine, req)),
    stats: guard('stats', (machine: MachineRef, o: { signal: AbortSignal }) => proxmoxStats(rt, machine, o.signal)),
    // Workspaces: a disk owned by a holder VM tagged with the workspace's identity (proxmox-workspace.ts).
    workspaceSupport: (template: TemplateConfig) => proxmoxWorkspaceSupport(template),
    deleteWorkspace: guard('deleteWorkspace', (ws: WorkspaceRef) => deleteWorkspaceHolder(rt, ws)),
    workspaceBytes: guard('workspaceBytes', (ws: WorkspaceRef) => workspaceDiskBytes(rt, ws)),
    close: () => rt.close(),
    callCounts: () => rt.callCounts(),
  };
}
