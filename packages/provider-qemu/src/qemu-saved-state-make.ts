/**
 * Making one saved VM state (qemu-saved-state.ts holds the layout, naming and locking): in a work
 * directory, boot the template exactly as a lease would be booted (same argv builder, plus
 * `-device vmgenid,guid=auto`), wait with the same readiness walk as ready() (serial marker,
 * guest-agent ping), then:
 *   - with a guest agent, wait until the guest kernel's RNG is initialized (a 1-byte read of
 *     /dev/random through guest-file-read succeeds once it is), so that every restored VM starts
 *     from an initialized RNG and the vmgenid notify on restore forces a reseed (without this the
 *     tiny-console guests were saved ~1 s before "crng init done");
 *   - QMP `stop`, then `migrate` to `exec:cat > state.bin.part`, polling `query-migrate` until
 *     "completed" (the stream of a stopped VM: one pass, no dirty pages);
 *   - quit that qemu (QMP quit, then signals, verified by pid + start time + -name like destroy).
 * When the golden is a qcow2 disk the VM runs on an overlay of it in the work directory, which
 * becomes the saved state's disk (it holds exactly what the saved memory expects).
 * The caller renames the work directory into place; on any failure the caller removes it, and the
 * qemu is stopped here. Work directories of a dead maker are swept by the next one (sweepWorkDirs).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { VmhubError } from '@vmhub/core';
import { verifyQemu } from './proc.ts';
import { QmpClient, QmpError } from './qmp-client.ts';
import { qemuArgv } from './qemu-argv.ts';
import { readyIn } from './qemu-ready.ts';
import { migrateTo } from './qemu-restore.ts';
import { SOURCE, tail, type QemuRuntime } from './qemu-runtime.ts';
import type { LaunchShape } from './qemu-saved-state.ts';
import { freePorts, spawnQemu, stopQemu } from './qemu-spawn.ts';
import { FILES, readRecord, writeRecord } from './state-dir.ts';

export interface Made {
  stateBytes: number;
  /** The disk file inside the work directory, when the golden is a qcow2 disk. */
  disk?: string;
  /** Whether the guest's RNG was seen initialized before the save (guest agent only). */
  rngReady?: boolean;
}

/** Work directories are `.m-<last 16 of the name>-<random>` (short: unix socket paths are limited to 107 bytes). */
export function workPrefix(name: string): string {
  return `.m-${name.slice(-16)}-`;
}

export async function makeSavedState(rt: QemuRuntime, shape: LaunchShape, work: string, name: string, boundMs: number): Promise<Made> {
  const { template, options: t } = shape;
  const signal = AbortSignal.timeout(boundMs);
  await mkdir(work, { recursive: true, mode: 0o700 });
  const identity = `vmhub.saved-state.${name.slice(-16)}.${randomBytes(3).toString('hex')}`;
  let disk: string | undefined;
  if (shape.diskGolden) {
    disk = join(work, 'disk.qcow2');
    await execa(rt.qemuImg, ['create', '-q', '-f', 'qcow2', '-F', 'qcow2', '-b', shape.diskGolden, disk], { timeout: 30_000 });
  }
  const forwards = await freePorts(t.forward_ports ?? []);
  const argv = qemuArgv({ identity, dir: work, template, options: t, accel: shape.accel, machine: rt.machine, defaultMemoryMb: rt.defaultMemoryMb, disk, kernel: shape.kernel, forwards, vmgenid: true });
  // Tied to this process: a maker killed mid-way must not leave a VM that no lease, destroy or
  // reaper knows of (its work directory is swept by the next maker).
  const proc = await spawnQemu(rt, work, argv, identity, { dieWithThisProcess: true });
  const target = { pid: proc.pid, pid_start_time: proc.startTime, identity };
  await writeRecord(work, { identity, lease_id: '', template: template.id, created_at: new Date().toISOString(), pid: proc.pid, pid_start_time: proc.startTime, accel: shape.accel, guest_agent: t.guest_agent === true });
  try {
    await readyIn(rt, { dir: work, identity }, { template, signal, stage: () => {} });
    const rngReady = t.guest_agent ? await waitForRng(rt, work, identity) : undefined;
    const part = join(work, 'state.bin.part');
    const client = await QmpClient.connect(join(work, FILES.qmp), { protocol: 'qmp', timeoutMs: rt.qmpTimeoutMs, label: identity });
    try {
      await client.execute('stop', undefined, rt.qmpTimeoutMs);
      await migrateTo(rt, client, part, signal);
    } finally {
      client.close();
    }
    await stopQemu(rt, target, work);
    const state = join(work, 'state.bin');
    await rename(part, state);
    const bytes = (await stat(state)).size;
    if (bytes < 4096) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] the saved VM state is only ${bytes} bytes`, { source: SOURCE });
    await chmod(state, 0o444);
    if (disk) await chmod(disk, 0o444);
    for (const f of [FILES.record, FILES.qmp, FILES.console, FILES.qga, 'vnc.sock']) await rm(join(work, f), { force: true });
    return { stateBytes: bytes, ...(disk ? { disk } : {}), ...(rngReady === undefined ? {} : { rngReady }) };
  } catch (err) {
    await stopQemu(rt, target, work).catch(() => undefined);
    const msg = (err as Error).message;
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] ${msg}${msg.includes('qemu.log') ? '' : ` | qemu: ${await tail(join(work, FILES.log), 300)}`}`, { source: SOURCE, cause: err });
  }
}

/**
 * Wait (≤ 30 s) until the guest kernel's RNG is initialized: reading /dev/random succeeds only
 * then (Linux ≥ 5.6). A 1-byte read of /dev/urandom first makes the kernel generate jitter
 * entropy; qemu-ga opens files non-blocking, so an early /dev/random read answers EAGAIN and is
 * retried every 100 ms. Best effort: a guest without /dev/random (Windows) or an agent that
 * refuses files answers false, and the save goes ahead.
 */
async function waitForRng(rt: QemuRuntime, dir: string, identity: string): Promise<boolean> {
  let qga: QmpClient | undefined;
  try {
    qga = await QmpClient.connect(join(dir, FILES.qga), { protocol: 'qga', timeoutMs: rt.qmpTimeoutMs, label: identity });
    // A read of /dev/urandom makes an uninitialized kernel generate jitter entropy at once (an
    // idle tiny-console guest otherwise stays uninitialized for over 30 s).
    const kick = await qga.execute('guest-file-open', { path: '/dev/urandom', mode: 'r' }, rt.qmpTimeoutMs);
    try { await qga.execute('guest-file-read', { handle: kick, count: 1 }, 30_000); } finally { await qga.execute('guest-file-close', { handle: kick }, rt.qmpTimeoutMs).catch(() => undefined); }
    const handle = await qga.execute('guest-file-open', { path: '/dev/random', mode: 'r' }, rt.qmpTimeoutMs);
    try {
      const until = Date.now() + 30_000;
      for (;;) {
        try {
          const r = (await qga.execute('guest-file-read', { handle, count: 1 }, rt.qmpTimeoutMs)) as { count?: number };
          if ((r.count ?? 0) > 0) return true;
        } catch (err) {
          if (!(err instanceof QmpError) || !/temporarily unavailable|again/i.test(err.message)) throw err;
        }
        if (Date.now() > until) throw new Error('/dev/random still not readable after 30 s');
        await sleep(100);
      }
    } finally {
      await qga.execute('guest-file-close', { handle }, rt.qmpTimeoutMs).catch(() => undefined);
    }
  } catch (err) {
    rt.context.log('warn', 'could not see the guest RNG initialized before saving; restored VMs rely on the vmgenid notify alone', { identity, error: (err as Error).message });
    return false;
  } finally {
    qga?.close();
  }
}

/** Stop and remove the work directories of makers of `name` that are gone (the caller holds the lock). */
export async function sweepWorkDirs(rt: QemuRuntime, root: string, name: string): Promise<void> {
  for (const entry of await readdir(root).catch(() => [] as string[])) {
    if (!entry.startsWith(workPrefix(name))) continue;
    const dir = join(root, entry);
    const record = await readRecord(dir);
    if (record && (await verifyQemu(record.pid, record.pid_start_time, record.identity)).verdict === 'ours') {
      await stopQemu(rt, record, dir).catch(() => undefined);
    }
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    rt.context.log('warn', 'removed the work directory of a saved-state maker that is gone', { dir });
  }
}
