/**
 * create(): overlay (when the golden is a qcow2 disk), then qemu started as a detached session
 * leader with its stdout/stderr in qemu.log, then the identity record with the pid's start time.
 * Idempotent per identity: a verified running machine is returned as is.
 *
 * Where saved states are on (qemu-saved-state.ts; provider and template option `saved_state`),
 * the machine resumes from the saved state of its launch shape instead of booting: the state
 * file (and the saved disk) are hard-linked into the lease's directory, the overlay is backed by
 * the saved disk (golden ← saved disk ← lease overlay), qemu starts with the saving VM's device
 * set plus `-incoming defer`, and qemu-restore.ts loads the state and lets it run. The record
 * names `restored_from`, which ready() reads. The first create of a shape makes the saved state
 * (others wait for it). Whatever goes wrong on that path — no state can be made, the links, the
 * load — is logged once per reason and the lease cold-boots exactly as without saved states.
 *
 * A template with provider_options.ssh (qemu-ssh.ts) always cold-boots: the lease's key pair and
 * NoCloud seed are made in its fresh directory before qemu starts, the seed attached, and the ssh
 * port forwarded; a create that fails drops the key again.
 *
 * A create with `from_snapshot` is a fork (qemu-fork.ts): it never falls back to a cold boot.
 * A create with a workspace resumes like any other and then has the workspace's disk hot-plugged
 * into the slot every launch of its template has; the guest mounts it before create returns
 * (qemu-workspace.ts attachWorkspace). A cold boot attaches the disk at boot instead.
 */
import { link, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError, type CreateRequest, type MachineRef } from '@vmhub/core';
import { verifyQemu } from './proc.ts';
import { forkFromSnapshot } from './qemu-fork.ts';
import { hasWorkspacePort } from './qemu-argv.ts';
import { freshDir, launchOf, overlay, start, type Launch, type StartOptions } from './qemu-launch.ts';
import { resumeFromState } from './qemu-restore.ts';
import { SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { savedStateFor, savedStateOff, type SavedState } from './qemu-saved-state.ts';
import { prepareLeaseSsh } from './qemu-ssh.ts';
import { stopQemu } from './qemu-spawn.ts';
import { attachWorkspace, ensureWorkspaceDisk } from './qemu-workspace.ts';
import { FILES, machineDir, readRecord } from './state-dir.ts';

/** How long loading a saved state may take before the lease cold-boots instead. */
const RESTORE_TIMEOUT_MS = 60_000;

export async function create(rt: QemuRuntime, request: CreateRequest): Promise<MachineRef> {
  const { identity, template } = request;
  const dir = machineDir(rt.stateDir, identity);
  if (dir.includes(',')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] state directory ${dir} contains a comma, which QEMU option syntax cannot carry: choose another provider option state_dir / VMHUB_QEMU_STATE_DIR`, { source: SOURCE });
  const existing = await readRecord(dir);
  if (existing?.identity === identity && (await verifyQemu(existing.pid, existing.pid_start_time, identity)).verdict === 'ours') {
    return { identity, external_id: dir, details: { pid: existing.pid, state_dir: dir, accel: existing.accel, ...(existing.restored_from ? { restored_from: existing.restored_from } : {}) } };
  }
  if (request.from_snapshot) return forkFromSnapshot(rt, request, dir);
  const launch = await launchOf(rt, identity, dir, template, request);
  request.signal.throwIfAborted();
  const { t, diskGolden } = launch;

  const workspace = request.workspace && { disk: await ensureWorkspaceDisk(rt, request.workspace), identity: request.workspace.identity };
  const off = savedStateOff(rt, template, t) ?? (workspace && !hasWorkspacePort(rt.machine) ? `machine type ${rt.machine} has no root port to hot-plug a workspace disk into (q35 has)` : undefined);
  if (!off) {
    const saved = await savedStateFor(rt, { template, options: t, accel: launch.accel, kernel: launch.kernel, diskGolden }, request.signal);
    if ('why' in saved) {
      fallbackOnce(rt, template.id, saved.why);
    } else {
      try {
        return await restore(rt, launch, saved, workspace);
      } catch (err) {
        if (request.signal.aborted) throw err;
        // The message names this lease's files: the reason is the saved state that would not load.
        fallbackOnce(rt, template.id, `resuming from saved state ${saved.name} failed: ${(err as Error).message}`, `resume ${saved.name}`);
      }
    }
  }
  return coldBoot(rt, launch, workspace);
}

const warned = new WeakMap<QemuRuntime, Set<string>>();

/**
 * Log why a lease cold-boots instead of resuming, once per template and `reason` (default: the
 * message without its "N s ago").
 */
function fallbackOnce(rt: QemuRuntime, template: string, why: string, reason = why.replace(/\d+ s ago/, '')): void {
  const seen = warned.get(rt) ?? new Set<string>();
  warned.set(rt, seen);
  const key = `${template}\n${reason}`;
  if (seen.has(key)) return;
  seen.add(key);
  rt.context.log('warn', 'cold boot instead of the saved VM state', { template, why });
}

async function restore(rt: QemuRuntime, l: Launch, saved: SavedState, workspace?: StartOptions['workspace']): Promise<MachineRef> {
  const { dir, identity, request, template, t } = l;
  await freshDir(dir);
  let record: Awaited<ReturnType<typeof start>> | undefined;
  try {
    // Hard links: the saved state's files stay reachable from this lease even if that state is
    // replaced and removed meanwhile (the template's older states are cleaned up).
    const stateFile = join(dir, FILES.savedState);
    await link(saved.stateFile, stateFile);
    let disk: string | undefined;
    if (saved.disk) {
      const savedDisk = join(dir, FILES.savedDisk);
      await link(saved.disk, savedDisk);
      disk = await overlay(rt, savedDisk, dir);
    }
    request.signal.throwIfAborted();
    record = await start(rt, l, { disk, incoming: stateFile, restoredFrom: saved.name, workspace: workspace && { ...workspace, hotplug: true } });
    await resumeFromState(rt, dir, { ...record, identity }, stateFile, RESTORE_TIMEOUT_MS);
    if (workspace) await attachWorkspace(rt, dir, { ...record, identity }, workspace.disk, l.request.signal);
    rt.context.log('info', 'qemu resumed from saved state', { identity, pid: record.pid, accel: l.accel, template: template.id, saved_state: saved.name, guest_agent: t.guest_agent === true });
    return { identity, external_id: dir, details: { pid: record.pid, state_dir: dir, accel: l.accel, restored_from: saved.name } };
  } catch (err) {
    if (record) await stopQemu(rt, { pid: record.pid, pid_start_time: record.startTime, identity }, dir).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

async function coldBoot(rt: QemuRuntime, l: Launch, workspace?: StartOptions['workspace']): Promise<MachineRef> {
  const { dir, identity, template } = l;
  await freshDir(dir);
  let disk: string | undefined;
  let started: Awaited<ReturnType<typeof start>>;
  try {
    if (l.diskGolden) disk = await overlay(rt, l.diskGolden, dir);
    const seed = await prepareLeaseSsh(rt, { identity, leaseId: l.request.lease_id, dir, t: l.t });
    l.request.signal.throwIfAborted();
    started = await start(rt, l, { disk, seed, workspace });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    rt.secrets.drop(identity);
    throw err;
  }
  rt.context.log('info', 'qemu started', { identity, pid: started.pid, accel: l.accel, template: template.id });
  return { identity, external_id: dir, details: { pid: started.pid, state_dir: dir, accel: l.accel } };
}
