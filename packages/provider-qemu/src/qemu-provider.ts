/**
 * The provider's methods: create (overlay + detached qemu), ready (process → qmp → guest),
 * destroy by identity, list, state (verified like destroy), and console/channel, each of which opens a new connection per call
 * (core opens one per lease session and closes it). No daemon and no per-machine state in this
 * process: each qemu is a session leader of its own (setsid) that outlives the server, and
 * everything needed to find and verify it later sits in the lease's state directory (and a lease's
 * SSH key in `<instance state dir>/provider-qemu/keys`, qemu-ssh.ts). Snapshots (memory + disk:
 * qemu-snapshot.ts makes them, qemu-snapshot-restore.ts puts a machine back, qemu-fork.ts starts
 * a create's `from_snapshot`) live in `<state_dir>/snapshots/` (qemu-snapshot-files.ts). Each method
 * lives in its own file; this one wires them to a runtime. Workspaces are qcow2 data disks in
 * `<state_dir>/workspaces/` (qemu-workspace.ts). restart() reboots the guest inside the same qemu
 * (qemu-restart.ts); stats() reads /proc (qemu-stats.ts), logs() the serial console's file (qemu-logs.ts).
 */
import type { ProviderContext, ProviderMethods } from '@vmhub/core';
import type { QemuProviderOptions } from './options.ts';
import { openChannel } from './qemu-channel.ts';
import { openConsole } from './qemu-console.ts';
import { connectPort } from './qemu-connect.ts';
import { create } from './qemu-create.ts';
import { destroy } from './qemu-destroy.ts';
import { list } from './qemu-list.ts';
import { ready } from './qemu-ready.ts';
import { createRuntime } from './qemu-runtime.ts';
import { snapshot, snapshotSupport } from './qemu-snapshot.ts';
import { deleteSnapshot, listSnapshots } from './qemu-snapshot-files.ts';
import { restoreSnapshot } from './qemu-snapshot-restore.ts';
import { qemuRestartSupport, restart } from './qemu-restart.ts';
import { serialLog } from './qemu-logs.ts';
import { qemuStats } from './qemu-stats.ts';
import { pinSshHostKey, sshAccess } from './qemu-ssh.ts';
import { state } from './qemu-state.ts';
import { availability, status } from './qemu-status.ts';
import { deleteWorkspaceDisk, qemuWorkspaceSupport, refuseWithWorkspace, workspaceDiskBytes } from './qemu-workspace.ts';

export function createQemuProviderMethods(options: QemuProviderOptions, context: ProviderContext): ProviderMethods {
  const rt = createRuntime(options, context);
  return {
    status: () => status(rt),
    availability: (template) => availability(rt, template),
    create: (request) => create(rt, request),
    ready: (machine, request) => ready(rt, machine, request),
    destroy: (machine) => destroy(rt, machine),
    list: () => list(rt),
    state: (machine) => state(rt, machine),
    console: (machine) => openConsole(rt, machine),
    channel: (machine, template) => openChannel(rt, machine, template),
    connect: (machine, port, o) => connectPort(rt, machine, port, o.signal),
    sshAccess: (machine, o) => sshAccess(rt, machine, o.template),
    pinSshHostKey: (machine, fingerprint) => pinSshHostKey(rt, machine, fingerprint),
    snapshotSupport: (template) => snapshotSupport(template),
    snapshot: async (machine, request) => { await refuseWithWorkspace(rt, machine, 'snapshot'); return snapshot(rt, machine, request); },
    restore: async (machine, ref, o) => { await refuseWithWorkspace(rt, machine, 'restore'); return restoreSnapshot(rt, machine, ref, o); },
    deleteSnapshot: (ref) => deleteSnapshot(rt, ref),
    listSnapshots: () => listSnapshots(rt),
    restartSupport: (template) => qemuRestartSupport(template),
    restart: (machine, request) => restart(rt, machine, request),
    stats: (machine, o) => qemuStats(rt, machine, o),
    logs: (machine, o) => serialLog(rt, machine, o),
    workspaceSupport: (template) => qemuWorkspaceSupport(template),
    deleteWorkspace: (ws) => deleteWorkspaceDisk(rt, ws),
    workspaceBytes: (ws) => workspaceDiskBytes(rt, ws),
  };
}
