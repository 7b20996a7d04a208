/**
 * Where snapshots live and how they are found, listed and deleted. One directory per snapshot,
 * named by its identity (`vmhub-<instance>-snap-<id>`: the instance is in the name, so instances
 * sharing a state directory never meet), under `<state_dir>/snapshots/`:
 *   snapshot.json        the record: identity, the machine it was made of (`source`), template,
 *                        launch shape (the saved-state name of the template's launch: a stream
 *                        loads only into a qemu of the same shape), sizes, disk layers
 *   state.bin            the migration stream of the paused machine (memory + device state)
 *   layer-<token>.qcow2  when the template has a qcow2 disk: the machine's disk at the snapshot
 *                        (the overlay it ran on, frozen), and hard links to every layer below it
 *                        (earlier snapshots' layers, saved-disk.qcow2), each naming its backing
 *                        file by a bare relative name, down to the golden (absolute)
 * Every file is a hard link and read-only (0444): the machine it was made of, forks and machines
 * put back to it hold their own links, so deleting any of them (or the snapshot) never pulls a
 * file from under another, and nothing is copied. A snapshot is made in `snapshots/.w-<random>`
 * and renamed into place whole; list and delete never see a half-made one.
 *
 * deleteSnapshot reads the identity back from the record before removing anything: a directory
 * whose record names another identity (or none) is `identity_mismatch` and left alone.
 */
import { existsSync } from 'node:fs';
import { link, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError, type DestroyOutcome, type OwnedSnapshot, type SnapshotRef } from '@vmhub/core';
import { findByIdentity, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { readJsonRecord, writeJsonRecord } from './state-dir.ts';

export const SNAPSHOTS_DIR = 'snapshots';
export const SNAPSHOT_FILES = { record: 'snapshot.json', state: 'state.bin' } as const;
/** Bump when what a snapshot holds changes in a way its record cannot say. */
export const SNAPSHOT_FORMAT = '1';

export interface SnapshotRecord {
  identity: string;
  format: string;
  /** The identity of the machine it was made of. */
  source: string;
  template: string;
  /** The launch shape's saved-state name (qemu-saved-state.ts savedStateName). */
  shape: string;
  accel: string;
  qemu_version: string;
  created_at: string;
  state_bytes: number;
  /** The disk, when the template has a qcow2 one. */
  disk?: {
    /** The layer that holds the disk as it was at the snapshot (the chain's top). */
    top: string;
    /** Every layer file of the chain in this directory, top first (the golden is not among them). */
    files: string[];
    virtual_size: number;
    /** Bytes the top layer holds on the host (what the machine wrote before the snapshot). */
    layer_bytes: number;
  };
}

export function snapshotsRoot(rt: QemuRuntime): string {
  return join(rt.stateDir, SNAPSHOTS_DIR);
}

export async function readSnapshotRecord(dir: string): Promise<SnapshotRecord | undefined> {
  return readJsonRecord<SnapshotRecord>(join(dir, SNAPSHOT_FILES.record), (rec) => typeof rec.identity === 'string' && typeof rec.shape === 'string');
}

export async function writeSnapshotRecord(dir: string, record: SnapshotRecord): Promise<void> {
  await writeJsonRecord(dir, SNAPSHOT_FILES.record, record, 0o444);
}

/**
 * The snapshot a restore or a fork starts from, read back by identity: NOT_FOUND when it is gone,
 * INVALID_REQUEST when its directory's record names another identity.
 */
export async function requireSnapshot(rt: QemuRuntime, ref: SnapshotRef): Promise<{ dir: string; record: SnapshotRecord }> {
  const found = await findByIdentity(snapshotsRoot(rt), ref, readSnapshotRecord);
  if (found.verdict === 'mismatch' && found.record) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${found.dir} holds snapshot ${found.record.identity}, not ${ref.identity}`, { source: SOURCE });
  }
  if (found.verdict !== 'ours' || !existsSync(join(found.dir, SNAPSHOT_FILES.state))) {
    throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] snapshot ${ref.identity} is not in ${snapshotsRoot(rt)}`, { source: SOURCE });
  }
  return { dir: found.dir, record: found.record };
}

/**
 * Hard-link `src` as `dst`. A name already there for the same file is kept; one for another file
 * is replaced (only its name goes: whoever else links that file keeps it).
 */
export async function linkFile(src: string, dst: string): Promise<void> {
  const [a, b] = await Promise.all([stat(src), stat(dst).catch(() => undefined)]);
  if (b && b.ino === a.ino && b.dev === a.dev) return;
  if (b) await rm(dst, { force: true });
  await link(src, dst);
}

/** Hard-link `files` from `from` into `to` under the same names (linkFile). */
export async function linkFiles(from: string, to: string, files: readonly string[]): Promise<void> {
  for (const f of files) await linkFile(join(from, f), join(to, f));
}

export async function deleteSnapshot(rt: QemuRuntime, ref: SnapshotRef): Promise<DestroyOutcome> {
  const found = await findByIdentity(snapshotsRoot(rt), ref, readSnapshotRecord);
  if (found.verdict === 'gone') return 'already_gone';
  if (found.verdict === 'mismatch') {
    rt.context.log('warn', 'snapshot record does not carry this identity; left alone', { identity: ref.identity, dir: found.dir, found: found.record?.identity });
    return 'identity_mismatch';
  }
  await rm(found.dir, { recursive: true, force: true });
  rt.context.log('info', 'qemu snapshot deleted', { identity: ref.identity });
  return 'destroyed';
}

/** Snapshots whose directory carries this instance's prefix and whose record names that identity. */
export async function listSnapshots(rt: QemuRuntime): Promise<OwnedSnapshot[]> {
  const root = snapshotsRoot(rt);
  const out: OwnedSnapshot[] = [];
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith(rt.context.identityPrefix)) continue;
    const dir = join(root, name);
    const record = await readSnapshotRecord(dir);
    if (record?.identity !== name) continue;
    const created = Date.parse(record.created_at);
    out.push({ identity: name, external_id: dir, ...(Number.isNaN(created) ? {} : { created_at: created }), details: { state_dir: dir, source: record.source, template: record.template } });
  }
  return out;
}
