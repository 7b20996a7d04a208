/**
 * Workspaces as qcow2 data disks: `<state_dir>/workspaces/<identity>/` holds `disk.qcow2` (an
 * ext4 filesystem labelled `vmhub-ws`, made on the host with mkfs.ext4 and converted, so the guest
 * needs no mkfs) and `workspace.json` (identity, name, principal), read back before the directory
 * is deleted. The directory is not under the instance prefix at the state dir's top level, so
 * list() and the reaper's sweep never see it; destroy() removes only the lease's own directory.
 *
 * The disk is a virtio disk with serial `vmhub-ws`, and the kernel command line carries
 * `vmhub_ws=<path>`: a golden whose init mounts that disk there says so with the template option
 * `workspace_disk: true` (tiny-console's init does: it loads ext4, mounts the disk and, on a fresh
 * filesystem, gives its root the mount point's owner; a disk that appears later is mounted by its
 * mdev rule). Every launch of such a template has the same slot (qemu-argv.ts workspaceSlot): the
 * path on the command line and an empty PCIe root port. A cold boot attaches the disk there at
 * boot; a lease resumed from the template's saved state (made without any workspace) gets it
 * hot-plugged (attachWorkspace), so a workspace costs no cold boot. A machine with a workspace
 * cannot be snapshot, nor restored to a snapshot (CAPABILITY_UNAVAILABLE): its device set is no
 * longer the saved one; a fork never has one.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { VmhubError, type DestroyOutcome, type MachineRef, type TemplateConfig, type WorkspaceRef } from '@vmhub/core';
import { templateOptions } from './options.ts';
import { verifyQemu } from './proc.ts';
import { QmpClient } from './qmp-client.ts';
import { WORKSPACE_PORT, workspaceSlot } from './qemu-argv.ts';
import { recordFor, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { FILES, machineDir, readFrom, readJsonRecord, writeJsonRecord } from './state-dir.ts';

const WORKSPACES_DIR = 'workspaces';
const RECORD = 'workspace.json';
export const WORKSPACE_DISK = 'disk.qcow2';
/** The virtio serial the guest finds the disk by. */
export const WORKSPACE_SERIAL = 'vmhub-ws';
/** Size of a new workspace's filesystem (thin: the qcow2 grows as it is written). */
const SIZE = '4G';

interface WorkspaceRecord {
  identity: string;
  name: string;
  principal: string;
}

/** The guest path workspaces of this template go to, or why it takes none. */
export function qemuWorkspaceSupport(template: TemplateConfig): { path: string } | string {
  return workspaceSlot(template, templateOptions(template.provider_options));
}

function workspaceDir(rt: QemuRuntime, identity: string): string {
  return machineDir(join(rt.stateDir, WORKSPACES_DIR), identity);
}

/** The workspace's disk, made on first use: a fresh ext4 filesystem in a thin qcow2. */
export async function ensureWorkspaceDisk(rt: QemuRuntime, ws: WorkspaceRef): Promise<string> {
  const dir = workspaceDir(rt, ws.identity);
  const disk = join(dir, WORKSPACE_DISK);
  const rec = await readJsonRecord<WorkspaceRecord>(join(dir, RECORD), (r) => typeof r.identity === 'string');
  if (rec && existsSync(disk)) {
    if (rec.identity !== ws.identity) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] ${dir} carries workspace identity ${rec.identity}, not ${ws.identity}: refusing to attach it`, { source: SOURCE });
    return disk;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const raw = join(dir, '.new.raw');
  const fail = (what: string) => (err: Error) => { throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] workspace disk for ${ws.identity}: ${what} failed: ${err.message}`, { source: SOURCE, cause: err }); };
  try {
    await execa('mkfs.ext4', ['-q', '-F', '-L', WORKSPACE_SERIAL, raw, SIZE], { timeout: 60_000, env: { PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` } }).catch(fail('mkfs.ext4 (e2fsprogs)'));
    await execa(rt.qemuImg, ['convert', '-q', '-f', 'raw', '-O', 'qcow2', raw, `${disk}.tmp`], { timeout: 120_000 }).catch(fail('qemu-img convert'));
    await rename(`${disk}.tmp`, disk);
  } finally {
    await rm(raw, { force: true });
  }
  await writeJsonRecord(dir, RECORD, { identity: ws.identity, name: ws.name, principal: ws.principal } satisfies WorkspaceRecord, 0o600);
  return disk;
}

/** Delete the workspace's directory after reading its identity back. */
export async function deleteWorkspaceDisk(rt: QemuRuntime, ws: WorkspaceRef): Promise<DestroyOutcome> {
  let dir: string;
  try {
    dir = workspaceDir(rt, ws.identity);
  } catch {
    return 'already_gone';
  }
  if (!existsSync(dir)) return 'already_gone';
  const rec = await readJsonRecord<WorkspaceRecord>(join(dir, RECORD), (r) => typeof r.identity === 'string');
  if (rec?.identity !== ws.identity) return 'identity_mismatch';
  await rm(dir, { recursive: true, force: true });
  return 'destroyed';
}

/** Bytes the disk takes on the host (allocated blocks of the thin qcow2). */
export async function workspaceDiskBytes(rt: QemuRuntime, ws: WorkspaceRef): Promise<number | undefined> {
  const s = await stat(join(workspaceDir(rt, ws.identity), WORKSPACE_DISK)).catch(() => undefined);
  return s ? s.blocks * 512 : undefined;
}

/** CAPABILITY_UNAVAILABLE when the machine has a workspace disk (its device set is not a snapshot's). */
export async function refuseWithWorkspace(rt: QemuRuntime, machine: MachineRef, what: string): Promise<void> {
  const { record } = await recordFor(rt, machine);
  if (record?.workspace) throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${what}: ${machine.identity} has a workspace disk attached; a QEMU snapshot holds a fixed device set without it, so a machine with a workspace is not snapshot or restored`, { source: SOURCE, hint: 'Keep state in the workspace itself (it survives the lease), or snapshot a lease created without a workspace.' });
}

/** How long the guest may take to mount a hot-plugged workspace disk. */
const ATTACH_TIMEOUT_MS = 60_000;
const MOUNTED = Buffer.from('workspace mounted at ');

/**
 * Hot-plug the workspace's disk into a machine that resumed from a saved state (it has the empty
 * root port and the `vmhub_ws=` path of its template's slot: qemu-argv.ts workspaceSlot), then
 * wait until the guest says on serial that it mounted it (tiny-console's mdev rule runs
 * /sbin/vmhub-ws-mount for the new disk). QMP `blockdev-add` (the qcow2 over its file) and
 * `device_add` (virtio-blk-pci, serial vmhub-ws) on the provider's monitor. PROVISION_FAILED when
 * qemu refuses, dies, or the guest has not mounted it within ATTACH_TIMEOUT_MS: the caller stops
 * this qemu and cold-boots the lease with the disk attached at boot.
 */
export async function attachWorkspace(rt: QemuRuntime, dir: string, proc: { pid: number; startTime: string; identity: string }, disk: string, signal: AbortSignal): Promise<void> {
  const started = Date.now();
  const serial = join(dir, FILES.serial);
  let offset = (await stat(serial).catch(() => undefined))?.size ?? 0;
  const fail = (why: string): never => {
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] hot-plugging the workspace disk into ${proc.identity} failed: ${why}`, { source: SOURCE });
  };
  const qmp = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: rt.qmpTimeoutMs, label: proc.identity });
  try {
    await qmp.execute('blockdev-add', { driver: 'qcow2', 'node-name': 'ws0', file: { driver: 'file', filename: disk } }, rt.qmpTimeoutMs);
    await qmp.execute('device_add', { driver: 'virtio-blk-pci', drive: 'ws0', serial: WORKSPACE_SERIAL, id: 'wsdisk', bus: WORKSPACE_PORT }, rt.qmpTimeoutMs);
  } catch (err) {
    fail(`qemu: ${(err as Error).message}`);
  } finally {
    qmp.close();
  }
  for (;;) {
    signal.throwIfAborted();
    const fresh = await readFrom(serial, Math.max(0, offset - MOUNTED.length));
    if (fresh.data.includes(MOUNTED)) break;
    offset = fresh.end;
    if ((await verifyQemu(proc.pid, proc.startTime, proc.identity)).verdict !== 'ours') fail('qemu exited');
    if (Date.now() - started > ATTACH_TIMEOUT_MS) fail(`the guest did not mount it within ${ATTACH_TIMEOUT_MS / 1000} s (no "${MOUNTED.toString()}" on serial)`);
    await sleep(20);
  }
  rt.context.log('info', 'workspace disk hot-plugged and mounted', { identity: proc.identity, ms: Date.now() - started });
}
