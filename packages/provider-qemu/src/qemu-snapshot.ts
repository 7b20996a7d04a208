/**
 * snapshotSupport() and snapshot(): memory + disk snapshots of a running lease (the layout is in
 * qemu-snapshot-files.ts). snapshot() pauses the machine (QMP `stop`), and while it is paused:
 *   - when it has a qcow2 disk: hard-links the overlay it runs on as `layer-<token>.qcow2`, makes
 *     a new empty top overlay `top-<token>.qcow2` backed by it (relative name) and switches the
 *     running drive onto it (`blockdev-snapshot-sync`, mode "existing", which keeps our header);
 *     the frozen layer is never written again, and the lease's record names the new top;
 *   - migrates the machine's state to `state.bin` (QMP `migrate` to `exec:cat > file`; a stopped
 *     VM streams in one pass, no dirty pages);
 * then lets it run again (`cont`, also when something failed; a machine that was paused before
 * stays paused). The frozen layer and the layers
 * below it are hard-linked into the snapshot directory (no copy), the record written, and the
 * directory renamed into place (work directories older than 10 minutes, a killed maker's, are
 * swept by the next snapshot). size_bytes is what the snapshot holds that no base shares: the
 * state file plus the frozen layer's allocated bytes.
 *
 * Refused with a typed error: templates snapshotSupport() gives a reason for (per-lease SSH: a
 * fork would carry the source lease's key and sshd host key in its memory), a machine that is not
 * running (NOT_FOUND), one of another template (INVALID_REQUEST), one whose qemu has no vmgenid
 * device or whose disk chain names its layers by absolute paths (started by an older version of
 * this provider: CAPABILITY_UNAVAILABLE). One snapshot or restore of a machine at a time per process.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, link, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { execa } from 'execa';
import { VmhubError, type MachineRef, type SnapshotResult, type TemplateConfig } from '@vmhub/core';
import { templateOptions } from './options.ts';
import { procInfo } from './proc.ts';
import { QmpClient } from './qmp-client.ts';
import { launchOf, overlay, type Launch } from './qemu-launch.ts';
import { migrateTo } from './qemu-restore.ts';
import { requireLive, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { savedStateName } from './qemu-saved-state.ts';
import { linkFiles, readSnapshotRecord, snapshotsRoot, SNAPSHOT_FILES, SNAPSHOT_FORMAT, writeSnapshotRecord, type SnapshotRecord } from './qemu-snapshot-files.ts';
import { FILES, machineDir, writeRecord } from './state-dir.ts';

const VMGENID = 'vmgenid,guid=auto';

export function snapshotSupport(template: TemplateConfig): { memory: boolean } | string {
  let ssh: unknown;
  try { ssh = templateOptions(template.provider_options).ssh; } catch { return 'the template\'s provider_options cannot be read'; }
  if (ssh) return 'the template has per-lease SSH (provider_options.ssh): a snapshot holds the lease\'s key and sshd host key in memory, which a fork must not inherit';
  return { memory: true };
}

/** The launch shape's name (a snapshot loads only into a qemu of the same shape). */
export async function shapeOf(rt: QemuRuntime, l: Launch, accel: 'kvm' | 'tcg' = l.accel): Promise<string> {
  return (await savedStateName(rt, { template: l.template, options: l.t, accel, kernel: l.kernel, diskGolden: l.diskGolden })).name;
}

const busy = new WeakMap<QemuRuntime, Map<string, Promise<unknown>>>();

/** Run `fn` when no other snapshot or restore of `identity` runs in this process. */
export async function oneAtATime<T>(rt: QemuRuntime, identity: string, fn: () => Promise<T>): Promise<T> {
  const m = busy.get(rt) ?? new Map<string, Promise<unknown>>();
  busy.set(rt, m);
  const before = m.get(identity) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(fn);
  const tail = run.catch(() => undefined);
  m.set(identity, tail);
  void tail.then(() => { if (m.get(identity) === tail) m.delete(identity); });
  return run;
}

interface ChainEntry { filename: string; 'backing-filename'?: string; 'virtual-size'?: number }

/** The disk chain from `file` down (qemu-img info -U: the running qemu holds it). */
async function chainOf(rt: QemuRuntime, file: string): Promise<ChainEntry[]> {
  const { stdout } = await execa(rt.qemuImg, ['info', '-U', '--backing-chain', '--output=json', file], { timeout: 30_000 });
  return JSON.parse(stdout) as ChainEntry[];
}

/**
 * The chain's layer files in `dir` (top first), refusing a chain whose layers name each other by
 * absolute paths: a snapshot holding them would break once the lease's directory is gone.
 */
function layersIn(dir: string, chain: ChainEntry[], identity: string): string[] {
  const files: string[] = [];
  for (const e of chain) {
    if (dirname(e.filename) !== dir) break; // the golden (or another file outside): named absolutely, stays where it is
    files.push(basename(e.filename));
    const b = e['backing-filename'];
    if (b && isAbsolute(b) && dirname(b) === dir) {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${identity}'s disk layer ${basename(e.filename)} names its backing file by an absolute path into the lease directory (a machine started by an older provider-qemu): it cannot be snapshot; a new lease can`, { source: SOURCE });
    }
  }
  return files;
}

export async function snapshot(rt: QemuRuntime, machine: MachineRef, request: { identity: string; template: TemplateConfig; signal: AbortSignal }): Promise<SnapshotResult> {
  const support = snapshotSupport(request.template);
  if (typeof support === 'string') throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] template ${request.template.id}: ${support}`, { source: SOURCE });
  const root = snapshotsRoot(rt);
  const final = machineDir(root, request.identity);
  return oneAtATime(rt, machine.identity, async () => {
    const existing = await readSnapshotRecord(final);
    if (existing?.identity === request.identity && existing.source === machine.identity) return resultOf(final, existing); // a retried call
    if (existsSync(final)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] snapshot ${request.identity} already exists (of ${existing?.source ?? 'an unknown machine'})`, { source: SOURCE });
    const { dir, record } = await requireLive(rt, machine, 'snapshot');
    if (record.template !== request.template.id) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${machine.identity} is a ${record.template} machine, not ${request.template.id}`, { source: SOURCE });
    if (!(await procInfo(record.pid))?.argv.includes(VMGENID)) {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${machine.identity}'s qemu has no vmgenid device (started by an older provider-qemu), so its forks could not reseed their RNG: it cannot be snapshot; a new lease can`, { source: SOURCE });
    }
    const launch = await launchOf(rt, machine.identity, dir, request.template, { lease_id: record.lease_id, signal: request.signal });
    const shape = await shapeOf(rt, launch, record.accel === 'kvm' ? 'kvm' : 'tcg');
    const active = record.overlay ? join(dir, record.overlay) : undefined;
    const chain = active ? await chainOf(rt, active) : undefined;
    if (chain) layersIn(dir, chain, machine.identity);
    request.signal.throwIfAborted();

    await mkdir(root, { recursive: true, mode: 0o700 });
    await sweepWork(root);
    const work = join(root, `.w-${randomBytes(6).toString('hex')}`);
    await mkdir(work, { mode: 0o700 });
    const token = randomBytes(6).toString('hex');
    const started = Date.now();
    let pausedMs = 0;
    let disk: SnapshotRecord['disk'];
    try {
      const client = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: rt.qmpTimeoutMs, label: machine.identity });
      try {
        // A machine someone paused (the console's `stop`) stays paused after its snapshot.
        const wasRunning = ((await client.execute('query-status', undefined, rt.qmpTimeoutMs)) as { running?: boolean }).running !== false;
        await client.execute('stop', undefined, rt.qmpTimeoutMs);
        const pausedAt = Date.now();
        try {
          if (active && chain) {
            const layer = `layer-${token}.qcow2`;
            const top = `top-${token}.qcow2`;
            await link(active, join(dir, layer));
            const size = chain[0]?.['virtual-size'] ?? 0;
            await overlay(rt, join(dir, layer), dir, { name: top, size });
            await client.execute('blockdev-snapshot-sync', { device: await diskDevice(client, rt), 'snapshot-file': join(dir, top), format: 'qcow2', mode: 'existing' }, rt.qmpTimeoutMs);
            // From here the machine runs on the new top, whatever happens next.
            await writeRecord(dir, { ...record, overlay: top });
            disk = { top: layer, files: [layer, ...layersIn(dir, chain, machine.identity).slice(1)], virtual_size: size, layer_bytes: 0 };
          }
          await migrateTo(rt, client, join(work, `${SNAPSHOT_FILES.state}.part`), request.signal);
        } finally {
          // After a completed migration `cont` also takes the disks back (qemu inactivated them).
          if (wasRunning) {
            await client.execute('cont', undefined, rt.qmpTimeoutMs).catch((err: Error) => {
              rt.context.log('error', 'a snapshot could not let the machine run again', { identity: machine.identity, error: err.message });
            });
          }
          pausedMs = Date.now() - pausedAt;
        }
      } finally {
        client.close();
      }
      await rename(join(work, `${SNAPSHOT_FILES.state}.part`), join(work, SNAPSHOT_FILES.state));
      const stateBytes = (await stat(join(work, SNAPSHOT_FILES.state))).size;
      if (disk) {
        await linkFiles(dir, work, disk.files);
        const s = await stat(join(work, disk.top));
        disk.layer_bytes = s.blocks * 512;
      }
      for (const f of [SNAPSHOT_FILES.state, ...(disk?.files ?? [])]) await chmod(join(work, f), 0o444);
      const snap: SnapshotRecord = {
        identity: request.identity, format: SNAPSHOT_FORMAT, source: machine.identity, template: request.template.id, shape, accel: record.accel,
        qemu_version: await rt.qemuVersion(), created_at: new Date().toISOString(), state_bytes: stateBytes, ...(disk ? { disk } : {}),
      };
      await writeSnapshotRecord(work, snap);
      await rename(work, final);
      rt.context.log('info', 'qemu snapshot made', { identity: request.identity, source: machine.identity, ms: Date.now() - started, paused_ms: pausedMs, state_bytes: stateBytes, layer_bytes: disk?.layer_bytes });
      return resultOf(final, snap);
    } catch (err) {
      await rm(work, { recursive: true, force: true }).catch(() => undefined);
      if (VmhubError.is(err)) throw err;
      throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] snapshot of ${machine.identity} failed: ${(err as Error).message}`, { source: SOURCE, cause: err });
    }
  });
}

function resultOf(dir: string, r: SnapshotRecord): SnapshotResult {
  return {
    identity: r.identity, external_id: dir, memory: true, size_bytes: r.state_bytes + (r.disk?.layer_bytes ?? 0),
    details: { state_dir: dir, source: r.source, template: r.template, shape: r.shape, state_bytes: r.state_bytes, ...(r.disk ? { layer_bytes: r.disk.layer_bytes } : {}) },
  };
}

/** The drive the machine writes to (the only writable one: snapshot templates have no seed). */
async function diskDevice(client: QmpClient, rt: QemuRuntime): Promise<string> {
  const blocks = (await client.execute('query-block', undefined, rt.qmpTimeoutMs)) as { device: string; inserted?: { ro?: boolean } }[];
  const dev = blocks.find((b) => b.inserted && !b.inserted.ro)?.device;
  if (!dev) throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] the machine has a disk overlay but qemu shows no writable drive`, { source: SOURCE });
  return dev;
}

/** Work directories older than this are a dead snapshot maker's (a snapshot takes seconds). */
const STALE_WORK_MS = 10 * 60_000;

/** Remove the work directories a process killed mid-snapshot left behind. */
async function sweepWork(root: string): Promise<void> {
  for (const e of await readdir(root).catch(() => [] as string[])) {
    if (!e.startsWith('.w-')) continue;
    const s = await stat(join(root, e)).catch(() => undefined);
    if (s && Date.now() - s.mtimeMs > STALE_WORK_MS) await rm(join(root, e), { recursive: true, force: true }).catch(() => undefined);
  }
}
