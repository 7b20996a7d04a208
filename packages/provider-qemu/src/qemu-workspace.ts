/**
 * Workspaces as qcow2 data disks: `<state_dir>/workspaces/<identity>/` holds `disk.qcow2` (an
 * ext4 filesystem labelled `vmhub-ws`, made on the host with mkfs.ext4 and converted, so the guest
 * needs no mkfs) and `workspace.json` (identity, name, principal), read back before the directory
 * is deleted. The directory is not under the instance prefix at the state dir's top level, so
 * list() and the reaper's sweep never see it; destroy() removes only the lease's own directory.
 *
 * The disk is attached as a second virtio disk with serial `vmhub-ws`, and the kernel command line
 * carries `vmhub_ws=<path>`: a golden whose init mounts that disk there says so with the template
 * option `workspace_disk: true` (tiny-console's init does: it loads ext4, mounts the disk and, on
 * a fresh filesystem, gives its root the mount point's owner). A lease with a workspace always
 * cold-boots: a saved VM state holds a fixed device set without the disk. For the same reason a
 * machine with a workspace cannot be snapshot, nor restored to a snapshot (CAPABILITY_UNAVAILABLE),
 * and a fork never has one.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { VmhubError, type DestroyOutcome, type MachineRef, type TemplateConfig, type WorkspaceRef } from '@vmhub/core';
import { templateOptions } from './options.ts';
import { recordFor, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { machineDir, readJsonRecord, writeJsonRecord } from './state-dir.ts';

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
  const t = templateOptions(template.provider_options);
  if (!t.workspace_disk) return 'its golden does not mount a workspace disk (template provider_options.workspace_disk; tiny-console\'s init does)';
  const user = t.user ?? 'root';
  const path = template.workspace_path ?? (user === 'root' ? '/root' : `/home/${user}`);
  if (!/^\/[A-Za-z0-9._/-]*$/.test(path)) return `workspace_path ${JSON.stringify(path)} cannot go on the kernel command line (letters, digits, . _ - / only)`;
  return { path };
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
