/**
 * Saved VM states: leases resume from a snapshot of the golden taken after boot instead of
 * cold-booting it.
 *
 * One saved state per launch shape: everything on the qemu command line that shapes the guest
 * (the argv qemu-argv.ts builds, with the per-lease host-side parts — identity, state directory,
 * sockets, forwarded host ports — replaced by fixed placeholders: kernel/initrd/append, memory,
 * cpus, machine, accel, devices, guest agent, disk), the golden/kernel/initrd files (real path,
 * size, mtime, inode), the qemu binary (its `--version` line and the file's size and mtime), the
 * host CPU under KVM (`-cpu host`), the readiness probe, and FORMAT. Their hash names the
 * directory `<state_dir>/.saved-states/<template>-<hash16>/`:
 *   state.bin       the migration stream (QMP `migrate` to `exec:cat > file` of the stopped VM)
 *   disk.qcow2      when the golden is a qcow2 disk: the saving VM's overlay (backed by the golden),
 *                   so disk and memory match; each lease's overlay is backed by it
 *   manifest.json   the inputs, when and from what it was made
 * Files are made read-only (0444) and never written again: a lease hard-links them into its own
 * directory (so removing an old saved state never pulls a file from under a starting lease) and
 * qemu opens the disk only as a backing file.
 *
 * Made once, on first need, by the first create that finds none (qemu-saved-state-make.ts): under
 * an exclusive lock file `<name>.lock` (pid + start time of the maker; a lock whose owner is dead
 * or that is older than the make bound is taken over). The work happens in a temp directory
 * renamed into place when complete, so nobody ever sees a half-written state. Concurrent creators,
 * in this process or others, wait for the lock holder and reuse its result. A failed make leaves
 * `<name>.failed` (the reason); for FAILED_RETRY_MS creates of that shape cold-boot without
 * trying again. When a new state is written, the older ones of the same template are removed.
 *
 * Nothing here fails a lease: every problem is returned as a reason, and create() cold-boots.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, mkdir, open, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TemplateConfig } from '@vmhub/core';
import type { QemuTemplateOptions } from './options.ts';
import { isAlive, procInfo } from './proc.ts';
import { qemuArgv } from './qemu-argv.ts';
import type { QemuRuntime } from './qemu-runtime.ts';
import { makeSavedState, sweepWorkDirs, workPrefix } from './qemu-saved-state-make.ts';

/** Bump when what a saved state holds or how it is made changes in a way the inputs cannot see. */
export const FORMAT = '1';
export const SAVED_STATES_DIR = '.saved-states';
/** After a failed make, creates of that shape cold-boot for this long before trying again. */
export const FAILED_RETRY_MS = 10 * 60_000;

export interface LaunchShape {
  template: TemplateConfig;
  options: QemuTemplateOptions;
  accel: 'kvm' | 'tcg';
  /** Direct-boot kernel, when there is one. */
  kernel?: string;
  /** The golden, when it is a qcow2 disk. */
  diskGolden?: string;
}

export interface SavedState {
  /** Directory name under `.saved-states`: `<template>-<hash16>`. */
  name: string;
  dir: string;
  stateFile: string;
  disk?: string;
}

export interface Manifest {
  name: string;
  template: string;
  format: string;
  created_at: string;
  qemu_version: string;
  inputs: unknown;
  state_bytes: number;
  disk?: boolean;
  /** The guest's RNG was seen initialized before the save (guest agent templates). */
  guest_rng_ready?: boolean;
  make_ms: number;
}

export const STATE_FILE = 'state.bin';
export const DISK_FILE = 'disk.qcow2';
export const MANIFEST_FILE = 'manifest.json';

/** Why saved states are not used for this template on this provider, or undefined when they are. */
export function savedStateOff(rt: QemuRuntime, template: TemplateConfig, t: QemuTemplateOptions): string | undefined {
  if (!rt.savedState) return 'provider option saved_state is false (or VMHUB_QEMU_SAVED_STATE=0)';
  if (t.saved_state === false) return 'template provider_options.saved_state is false';
  if (!t.ready_marker && !t.guest_agent) return 'the template has no readiness probe (ready_marker or guest_agent), so there is no moment to save';
  // A state saved before the lease's seed existed holds no key of the lease's own, and one host
  // key for every lease resumed from it: per-lease SSH means a boot of its own (qemu-ssh.ts).
  if (t.ssh) return 'the template has per-lease SSH (provider_options.ssh): each lease boots from its own NoCloud seed';
  return undefined;
}

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[^A-Za-z0-9]+/, '').slice(0, 48) || 'template';
}

async function fileId(path: string | undefined): Promise<unknown> {
  if (!path) return null;
  const real = await realpath(path);
  const s = await stat(real);
  return { path: real, size: s.size, mtime_ms: Math.floor(s.mtimeMs), ino: s.ino };
}

async function binaryId(binary: string): Promise<unknown> {
  const candidates = isAbsolute(binary) || binary.includes('/') ? [binary] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, binary));
  for (const c of candidates) {
    if (existsSync(c)) return fileId(c).catch(() => binary);
  }
  return binary;
}

/** The host CPU, read once per process: it does not change under a running server. */
let hostCpu: Promise<string> | undefined;

async function cpuId(accel: 'kvm' | 'tcg'): Promise<string | null> {
  if (accel !== 'kvm') return null; // TCG emulates the same CPU model everywhere; KVM passes the host's through (-cpu host)
  hostCpu ??= readFile('/proc/cpuinfo', 'utf8').catch(() => '').then((info) => {
    const pick = (k: string) => new RegExp(`^${k}\\s*:\\s*(.*)$`, 'm').exec(info)?.[1] ?? '';
    return createHash('sha256').update(`${pick('model name')}\n${pick('flags')}`).digest('hex').slice(0, 16);
  });
  return hostCpu;
}

/**
 * The saved state's name for a launch shape, and the inputs it hashes (kept in the manifest).
 * Snapshots record it too (qemu-snapshot.ts): a migration stream loads only into a qemu of the
 * same shape, so restore and fork compare it.
 */
export async function savedStateName(rt: QemuRuntime, shape: LaunchShape): Promise<{ name: string; inputs: Record<string, unknown>; qemuVersion: string }> {
  const { template, options: t } = shape;
  const argv = qemuArgv({
    identity: '@identity', dir: '/@dir', template, options: t, accel: shape.accel, machine: rt.machine, defaultMemoryMb: rt.defaultMemoryMb,
    disk: shape.diskGolden ? '/@dir/disk.qcow2' : undefined, kernel: shape.kernel,
    forwards: Object.fromEntries((t.forward_ports ?? []).map((p) => [p, 0])), vmgenid: true,
  });
  const qemuVersion = await rt.qemuVersion();
  const inputs = {
    format: FORMAT,
    argv,
    golden: await fileId(shape.template.golden),
    kernel: shape.kernel === shape.template.golden ? 'golden' : await fileId(shape.kernel),
    initrd: await fileId(t.initrd),
    qemu: { version: qemuVersion, binary: await binaryId(rt.binary) },
    cpu: await cpuId(shape.accel),
    ready: { marker: t.ready_marker ?? null, guest_agent: t.guest_agent === true },
  };
  const hash = createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 16);
  return { name: `${safeName(template.id)}-${hash}`, inputs, qemuVersion };
}

function layout(root: string, name: string): SavedState {
  const dir = join(root, name);
  return { name, dir, stateFile: join(dir, STATE_FILE) };
}

async function complete(root: string, name: string): Promise<SavedState | undefined> {
  const s = layout(root, name);
  try {
    const manifest = JSON.parse(await readFile(join(s.dir, MANIFEST_FILE), 'utf8')) as Manifest;
    if (manifest.name !== name || !existsSync(s.stateFile)) return undefined;
    return manifest.disk ? { ...s, disk: join(s.dir, DISK_FILE) } : s;
  } catch {
    return undefined;
  }
}

interface LockOwner { pid: number; start: string; at: number }

async function ownerAlive(o: LockOwner): Promise<boolean> {
  const info = await procInfo(o.pid);
  return isAlive(info) && info.startTime === o.start;
}

/** Makes in flight in this process, by saved-state directory. */
const inflight = new Map<string, Promise<SavedState | { why: string }>>();

/**
 * The saved state for a launch shape: found, made now (this caller holds the lock), or made by
 * another creator this one waits for. Returns a reason instead when there is none to use.
 * `signal` stops this caller's wait, never a make in progress (others may be waiting for it).
 */
export async function savedStateFor(rt: QemuRuntime, shape: LaunchShape, signal: AbortSignal): Promise<SavedState | { why: string }> {
  let named: Awaited<ReturnType<typeof savedStateName>>;
  try {
    named = await savedStateName(rt, shape);
  } catch (err) {
    return { why: `cannot name the saved state: ${(err as Error).message}` };
  }
  const root = join(rt.stateDir, SAVED_STATES_DIR);
  const found = await complete(root, named.name);
  if (found) return found;
  const key = join(root, named.name);
  let job = inflight.get(key);
  if (!job) {
    job = obtain(rt, shape, root, named).finally(() => inflight.delete(key));
    inflight.set(key, job);
  }
  return abortable(job, signal);
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function obtain(rt: QemuRuntime, shape: LaunchShape, root: string, named: Awaited<ReturnType<typeof savedStateName>>): Promise<SavedState | { why: string }> {
  const { name } = named;
  const lock = join(root, `${name}.lock`);
  const failed = join(root, `${name}.failed`);
  const bound = ((shape.template.ready_timeout_seconds ?? 300) + 120) * 1000;
  const waitUntil = Date.now() + bound;
  await mkdir(root, { recursive: true, mode: 0o700 });
  for (;;) {
    const done = await complete(root, name);
    if (done) return done;
    const failure = await readFile(failed, 'utf8').then((s) => JSON.parse(s) as { at: number; why: string }).catch(() => undefined);
    if (failure && Date.now() - failure.at < FAILED_RETRY_MS) return { why: `making it failed ${Math.round((Date.now() - failure.at) / 1000)} s ago (retried after ${FAILED_RETRY_MS / 60_000} min): ${failure.why}` };
    const me: LockOwner = { pid: process.pid, start: (await procInfo(process.pid))?.startTime ?? '', at: Date.now() };
    const fh = await open(lock, 'wx', 0o600).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return undefined;
      throw err;
    });
    if (fh) {
      try { await fh.writeFile(JSON.stringify(me)); } finally { await fh.close(); }
      try {
        // Re-check under the lock: another maker may have finished between our look and our lock.
        const again = await complete(root, name);
        if (again) return again;
        return await makeLocked(rt, shape, root, named, failed, bound);
      } finally {
        // Only our own: past `bound` another creator may have taken the lock over.
        if (await readFile(lock, 'utf8').catch(() => '') === JSON.stringify(me)) await rm(lock, { force: true });
      }
    }
    // Someone else holds the lock: wait for its result, or take over a dead holder's lock.
    const owner = await readFile(lock, 'utf8').then((s) => JSON.parse(s) as LockOwner).catch(() => undefined);
    if (owner && (!(await ownerAlive(owner)) || Date.now() - owner.at > bound)) {
      // Move it aside under a unique name first, so two takers cannot both delete a fresh lock.
      const aside = `${lock}.stale-${randomBytes(4).toString('hex')}`;
      if (await rename(lock, aside).then(() => true, () => false)) {
        const moved = await readFile(aside, 'utf8').catch(() => '');
        // Another taker was first and a new creator has locked since: that lock is not stale, put it back.
        if (moved === JSON.stringify(owner)) rt.context.log('warn', 'took over the saved-state lock of a maker that is gone', { saved_state: name, owner });
        else await link(aside, lock).catch(() => undefined);
        await rm(aside, { force: true });
      }
      continue;
    }
    if (Date.now() > waitUntil) return { why: `another creator has been making it for over ${Math.round(bound / 1000)} s` };
    await sleep(100);
  }
}

async function makeLocked(rt: QemuRuntime, shape: LaunchShape, root: string, named: Awaited<ReturnType<typeof savedStateName>>, failed: string, bound: number): Promise<SavedState | { why: string }> {
  const { name } = named;
  await sweepWorkDirs(rt, root, name);
  const started = Date.now();
  rt.context.log('info', 'making a saved VM state (first lease of this launch shape): booting the golden once', { saved_state: name, template: shape.template.id });
  const work = join(root, `${workPrefix(name)}${randomBytes(3).toString('hex')}`);
  try {
    const made = await makeSavedState(rt, shape, work, name, bound);
    const manifest: Manifest = {
      name, template: shape.template.id, format: FORMAT, created_at: new Date().toISOString(), qemu_version: named.qemuVersion,
      inputs: named.inputs, state_bytes: made.stateBytes, ...(made.disk ? { disk: true } : {}), ...(made.rngReady === undefined ? {} : { guest_rng_ready: made.rngReady }), make_ms: Date.now() - started,
    };
    await writeFile(join(work, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o444 });
    const final = join(root, name);
    await rm(final, { recursive: true, force: true }); // an incomplete leftover (no manifest); complete() said none is there
    await rename(work, final);
    await rm(failed, { force: true });
    rt.context.log('info', 'saved VM state made', { saved_state: name, ms: manifest.make_ms, bytes: made.stateBytes });
    await removeOlder(rt, root, shape.template.id, name);
    return (await complete(root, name)) ?? { why: 'the saved state vanished right after it was made' };
  } catch (err) {
    await rm(work, { recursive: true, force: true }).catch(() => undefined);
    const why = (err as Error).message;
    await writeFile(failed, JSON.stringify({ at: Date.now(), why })).catch(() => undefined);
    rt.context.log('warn', 'making a saved VM state failed; leases of this shape cold-boot', { saved_state: name, error: why });
    return { why: `making it failed: ${why}` };
  }
}

/** Remove the template's other saved states (and their failure notes): stale keys must not pile up. */
async function removeOlder(rt: QemuRuntime, root: string, templateId: string, keep: string): Promise<void> {
  const pattern = new RegExp(`^${safeName(templateId).replace(/[.]/g, '\\.')}-[0-9a-f]{16}(\\.failed)?$`);
  for (const entry of await readdir(root).catch(() => [] as string[])) {
    if (entry === keep || !pattern.test(entry)) continue;
    await rm(join(root, entry), { recursive: true, force: true }).catch(() => undefined);
    rt.context.log('info', 'removed an older saved VM state of this template', { saved_state: entry });
  }
}
