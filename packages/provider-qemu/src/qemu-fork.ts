/**
 * create() with `from_snapshot`: a fork. A new machine, in a fresh state directory of its own
 * identity, resumed from the snapshot's state: the snapshot's state file and disk layers are
 * hard-linked into its directory (nothing copied; the snapshot can be deleted while the fork
 * runs), its own top overlay is made on the snapshot's top layer, and qemu starts with the
 * snapshot's device set, its own forwards and `-incoming defer`, then loads the state
 * (qemu-restore.ts resumeFromState). Its `-device vmgenid,guid=auto` gives it a new VM generation
 * ID, which qemu announces to the guest after the load: the guest kernel reseeds its RNG, so
 * forks of one snapshot do not share their randomness. Its record names `snapshot`.
 *
 * Unlike a saved-state resume a fork never falls back to a cold boot: a snapshot that is gone is
 * NOT_FOUND, one of another launch shape (template, golden, qemu, accel) or identity is
 * INVALID_REQUEST, a template snapshotSupport() refuses is CAPABILITY_UNAVAILABLE, a load that
 * fails is PROVISION_FAILED; the fork's directory is removed again.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError, type CreateRequest, type MachineRef } from '@vmhub/core';
import { freshDir, launchOf, overlay, start } from './qemu-launch.ts';
import { resumeFromState } from './qemu-restore.ts';
import { SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { linkFile, linkFiles, requireSnapshot, SNAPSHOT_FILES } from './qemu-snapshot-files.ts';
import { shapeOf, snapshotSupport } from './qemu-snapshot.ts';
import { stopQemu } from './qemu-spawn.ts';
import { FILES } from './state-dir.ts';

/** How long loading a snapshot's state may take. */
export const SNAPSHOT_LOAD_TIMEOUT_MS = 60_000;

export async function forkFromSnapshot(rt: QemuRuntime, request: CreateRequest, dir: string): Promise<MachineRef> {
  const { identity, template } = request;
  const ref = request.from_snapshot!;
  const support = snapshotSupport(template);
  if (typeof support === 'string') throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] template ${template.id}: ${support}`, { source: SOURCE });
  const snap = await requireSnapshot(rt, ref);
  const launch = await launchOf(rt, identity, dir, template, request);
  const shape = await shapeOf(rt, launch);
  if (shape !== snap.record.shape) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] snapshot ${ref.identity} is of launch shape ${snap.record.shape} (template ${snap.record.template}); a ${template.id} machine here is ${shape}: a fork needs the same template, golden, qemu and accel`, { source: SOURCE });
  }
  request.signal.throwIfAborted();
  await freshDir(dir);
  let proc: Awaited<ReturnType<typeof start>> | undefined;
  try {
    const state = join(dir, FILES.snapshotState);
    await linkFile(join(snap.dir, SNAPSHOT_FILES.state), state);
    const { disk } = snap.record;
    let top: string | undefined;
    if (disk) {
      await linkFiles(snap.dir, dir, disk.files);
      top = await overlay(rt, join(dir, disk.top), dir, { size: disk.virtual_size });
    }
    request.signal.throwIfAborted();
    proc = await start(rt, launch, { disk: top, incoming: state, snapshot: ref.identity });
    await resumeFromState(rt, dir, { ...proc, identity }, state, SNAPSHOT_LOAD_TIMEOUT_MS);
  } catch (err) {
    if (proc) await stopQemu(rt, { pid: proc.pid, pid_start_time: proc.startTime, identity }, dir).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  rt.context.log('info', 'qemu forked from a snapshot', { identity, pid: proc.pid, snapshot: ref.identity, template: template.id });
  return { identity, external_id: dir, details: { pid: proc.pid, state_dir: dir, accel: launch.accel, snapshot: ref.identity } };
}

