/**
 * What every way of starting a lease's qemu shares (a cold boot and a saved-state resume in
 * qemu-create.ts, a fork in qemu-fork.ts, a restore in qemu-snapshot-restore.ts):
 *   - launchOf: the template's launch (options, accel, direct-boot kernel, disk golden), checked
 *     like create checks it (golden present, TCP forwards accepted, KVM when asked for);
 *   - freshDir: an empty lease directory;
 *   - overlay: a qcow2 overlay in a directory. A backing file in the same directory is named by
 *     its bare file name (a relative backing path, resolved against the overlay's own directory),
 *     so a chain of hard-linked layers stays valid in every directory that holds links to all of
 *     them (a lease's, a snapshot's, a fork's); a backing file elsewhere (the golden) stays absolute;
 *   - start: spawn qemu for the lease and write its identity record (from then on the machine is
 *     destroy's and the reaper's to find).
 */
import { mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { execa } from 'execa';
import { VmhubError, type CreateRequest, type TemplateConfig } from '@vmhub/core';
import { chooseAccel } from './accel.ts';
import { templateOptions, type QemuTemplateOptions } from './options.ts';
import { qemuArgv } from './qemu-argv.ts';
import { goldenProblem, isQcow2, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { forwardsNeedTcp } from './qemu-status.ts';
import { guestPorts } from './qemu-ssh.ts';
import { freePorts, spawnQemu } from './qemu-spawn.ts';
import { FILES, writeRecord, type StateRecord } from './state-dir.ts';

export interface Launch {
  identity: string;
  dir: string;
  request: Pick<CreateRequest, 'lease_id' | 'signal'>;
  template: TemplateConfig;
  t: QemuTemplateOptions;
  accel: 'kvm' | 'tcg';
  kernel: string | undefined;
  diskGolden: string | undefined;
}

/** The template's launch for `dir`, or a typed error saying why it cannot be launched here. */
export async function launchOf(rt: QemuRuntime, identity: string, dir: string, template: TemplateConfig, request: Launch['request']): Promise<Launch> {
  const problem = await goldenProblem(template);
  if (problem) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] template ${template.id}: ${problem}`, { source: SOURCE });
  const tcp = forwardsNeedTcp(template);
  if (tcp) throw new VmhubError('CAPABILITY_UNAVAILABLE', tcp, { source: SOURCE });
  const t = templateOptions(template.provider_options);
  const accel = await chooseAccel(rt.wantedAccel);
  if (rt.wantedAccel === 'kvm' && accel.reason) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] accel "kvm" requested but ${accel.reason}`, { source: SOURCE });
  const diskGolden = (await isQcow2(template.golden)) ? template.golden : undefined;
  return { identity, dir, request, template, t, accel: accel.accel, kernel: diskGolden ? t.kernel : (t.kernel ?? template.golden), diskGolden };
}

/** A fresh lease directory; a create that fails before its record is written removes it itself. */
export async function freshDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/**
 * A qcow2 overlay `dir/name` backed by `backing` (relative when it is in `dir`). `size` (bytes)
 * makes qemu-img not open the backing chain (`-u`): for a chain whose layers a running qemu holds.
 */
export async function overlay(rt: QemuRuntime, backing: string, dir: string, o: { name?: string; size?: number } = {}): Promise<string> {
  const disk = join(dir, o.name ?? FILES.overlay);
  const named = dirname(backing) === dir ? basename(backing) : backing;
  const unsafe = o.size === undefined ? [] : ['-u'];
  const size = o.size === undefined ? [] : [String(o.size)];
  await execa(rt.qemuImg, ['create', '-q', '-f', 'qcow2', '-F', 'qcow2', '-b', named, ...unsafe, disk, ...size], { timeout: 30_000, cwd: dir }).catch((err: Error) => {
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] qemu-img could not create an overlay of ${backing}: ${err.message}`, { source: SOURCE, cause: err });
  });
  return disk;
}

export interface StartOptions {
  disk?: string;
  seed?: string;
  /** A migration stream to load: qemu starts with `-incoming defer` holding it (qemu-spawn.ts INCOMING_FD); resumeFromState loads it. */
  incoming?: string;
  restoredFrom?: string;
  /** The snapshot (its identity) this machine was forked from or put back to. */
  snapshot?: string;
  /** Host ports to forward from (a restore keeps the lease's); default: fresh ephemeral ports. */
  forwards?: Record<number, number>;
  /**
   * A workspace's disk (qemu-workspace.ts) and its identity for the record; attached at boot, or
   * with `hotplug` left out of the command line (a resume: attachWorkspace plugs it in after).
   */
  workspace?: { disk: string; identity: string; hotplug?: boolean };
  /** Keep these fields of the lease's record (a restore keeps its created_at). */
  keep?: Pick<StateRecord, 'created_at'>;
}

/**
 * Spawn qemu for the lease and write its identity record. Every qemu gets `-device vmgenid`: a
 * cold-booted machine can then be snapshot and forked too (a fork's device set must be the
 * source's, and its new generation ID is what makes the fork's kernel reseed its RNG).
 */
export async function start(rt: QemuRuntime, l: Launch, o: StartOptions): Promise<{ pid: number; startTime: string; forwards: Record<number, number> }> {
  const { dir, identity, template, t } = l;
  const forwards = o.forwards ?? (await freePorts(guestPorts(t)));
  const argv = qemuArgv({ identity, dir, template, options: t, accel: l.accel, machine: rt.machine, defaultMemoryMb: rt.defaultMemoryMb, disk: o.disk, seed: o.seed, workspaceDisk: o.workspace?.hotplug ? undefined : o.workspace?.disk, kernel: l.kernel, forwards, vmgenid: true, incoming: o.incoming !== undefined });
  const { pid, startTime } = await spawnQemu(rt, dir, argv, identity, { incomingFile: o.incoming });
  await writeRecord(dir, {
    identity, lease_id: l.request.lease_id, template: template.id, created_at: o.keep?.created_at ?? new Date().toISOString(),
    pid, pid_start_time: startTime, accel: l.accel, overlay: o.disk ? basename(o.disk) : undefined, guest_agent: t.guest_agent === true,
    ...(Object.keys(forwards).length ? { forwards } : {}),
    ...(o.restoredFrom ? { restored_from: o.restoredFrom } : {}),
    ...(o.snapshot ? { snapshot: o.snapshot } : {}),
    ...(o.workspace ? { workspace: o.workspace.identity } : {}),
  });
  return { pid, startTime, forwards };
}
