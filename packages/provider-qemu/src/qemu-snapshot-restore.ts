/**
 * restore(): put a lease's machine back to a snapshot (of it, or of another machine of the same
 * launch shape). QEMU cannot load a migration stream into a qemu that has run (`migrate-incoming`
 * needs one started with `-incoming`; `loadvm` needs internal qcow2 snapshots), so the lease's qemu
 * is replaced: everything that can fail before is checked first (the snapshot read back by
 * identity, the same template and launch shape — else INVALID_REQUEST, and nothing is touched),
 * then the old qemu is killed (verified like destroy; SIGKILL, since its state is thrown away), its disk layers' names dropped from the
 * lease directory (the files stay wherever else they are linked: snapshots), the snapshot's state
 * and layers hard-linked in, a new top overlay made on the snapshot's top layer, and a new qemu
 * started in the same directory with the same identity, the same guest-port forwards (the same
 * host ports; fresh ones if one was taken meanwhile) and `-incoming defer`, which loads the state
 * (qemu-restore.ts resumeFromState) and runs. A new vmgenid makes the guest reseed its RNG.
 *
 * The record keeps the lease and its created_at and names `snapshot`; the returned MachineRef
 * carries the new pid. Channels and consoles opened before are stale (core reopens them). A load
 * that fails after the old qemu was stopped leaves the machine gone (PROVISION_FAILED): state()
 * then says so and core ends the lease.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError, type MachineRef, type SnapshotRef, type TemplateConfig } from '@vmhub/core';
import { verifyQemu } from './proc.ts';
import { SNAPSHOT_LOAD_TIMEOUT_MS } from './qemu-fork.ts';
import { launchOf, overlay, start } from './qemu-launch.ts';
import { resumeFromState } from './qemu-restore.ts';
import { recordFor, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { linkFile, linkFiles, requireSnapshot, SNAPSHOT_FILES } from './qemu-snapshot-files.ts';
import { oneAtATime, shapeOf } from './qemu-snapshot.ts';
import { stopQemu } from './qemu-spawn.ts';
import { FILES } from './state-dir.ts';

/** Disk files a lease directory may hold: its top overlay and the layers below it. */
const DISK_FILE = /^(disk|top-[0-9a-f]+|layer-[0-9a-f]+|saved-disk)\.qcow2$/;

export async function restoreSnapshot(rt: QemuRuntime, machine: MachineRef, ref: SnapshotRef, options: { template: TemplateConfig; signal: AbortSignal }): Promise<MachineRef> {
  const { template, signal } = options;
  return oneAtATime(rt, machine.identity, async () => {
    const snap = await requireSnapshot(rt, ref);
    const { dir, record } = await recordFor(rt, machine);
    if (!record) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] no state record for ${machine.identity} in ${rt.stateDir}: the machine is gone`, { source: SOURCE });
    const v = await verifyQemu(record.pid, record.pid_start_time, record.identity);
    if (v.verdict === 'mismatch') throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] the process ${machine.identity}'s record names is not its qemu (${v.why}); left alone`, { source: SOURCE });
    if (record.template !== template.id || snap.record.template !== template.id) {
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] snapshot ${ref.identity} is of a ${snap.record.template} machine; ${machine.identity} is ${record.template}${record.template === template.id ? '' : ` (asked as ${template.id})`}`, { source: SOURCE });
    }
    const launch = await launchOf(rt, machine.identity, dir, template, { lease_id: record.lease_id, signal });
    const shape = await shapeOf(rt, launch);
    if (shape !== snap.record.shape) {
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] snapshot ${ref.identity} is of launch shape ${snap.record.shape}; ${machine.identity} is ${shape} (same template, but another golden, qemu or accel)`, { source: SOURCE });
    }
    signal.throwIfAborted();

    const started = Date.now();
    // Its state is thrown away: a verified SIGKILL, no clean quit (its sockets are bound anew).
    if (v.verdict === 'ours') await stopQemu(rt, record, dir, { discard: true });
    const phases: Record<string, number> = { stopped_ms: Date.now() - started };
    let proc: Awaited<ReturnType<typeof start>> | undefined;
    try {
      const state = join(dir, FILES.snapshotState);
      await linkFile(join(snap.dir, SNAPSHOT_FILES.state), state);
      // Names only: a layer of this lease that a snapshot holds stays there.
      for (const f of await readdir(dir)) if (DISK_FILE.test(f)) await rm(join(dir, f), { force: true });
      const { disk } = snap.record;
      let top: string | undefined;
      if (disk) {
        await linkFiles(snap.dir, dir, disk.files);
        top = await overlay(rt, join(dir, disk.top), dir, { size: disk.virtual_size });
      }
      const o = { disk: top, incoming: state, snapshot: ref.identity, keep: { created_at: record.created_at } };
      proc = await start(rt, launch, { ...o, forwards: record.forwards ?? {} }).catch((err: unknown) => {
        // A host port of the lease's forwards was taken while its qemu was down: fresh ones.
        if (!record.forwards || !VmhubError.is(err) || err.code !== 'PROVISION_FAILED') throw err;
        rt.context.log('warn', 'a restored machine could not keep its forwarded host ports; new ones', { identity: machine.identity, error: err.message });
        return start(rt, launch, o);
      });
      phases.started_ms = Date.now() - started;
      await resumeFromState(rt, dir, { ...proc, identity: machine.identity }, state, SNAPSHOT_LOAD_TIMEOUT_MS);
    } catch (err) {
      if (proc) await stopQemu(rt, { pid: proc.pid, pid_start_time: proc.startTime, identity: machine.identity }, dir).catch(() => undefined);
      rt.context.log('error', 'restoring a snapshot failed after the machine was stopped: the machine is gone', { identity: machine.identity, snapshot: ref.identity, error: (err as Error).message });
      throw err;
    }
    rt.context.log('info', 'qemu machine put back to a snapshot', { identity: machine.identity, snapshot: ref.identity, pid: proc.pid, ms: Date.now() - started, ...phases });
    return { identity: machine.identity, external_id: dir, details: { pid: proc.pid, state_dir: dir, accel: launch.accel, snapshot: ref.identity } };
  });
}
