/**
 * The per-lease state directory: `<state_dir>/<identity>/` holding identity.json (the record
 * destroy verifies), the qcow2 overlay, qmp.sock (the provider's own monitor: readiness and
 * teardown), console.sock (a second monitor for the lease's console), serial.log, qemu.log and
 * optionally qga.sock and seed.iso (the per-lease NoCloud seed of an ssh template); a machine resumed from a saved state also holds hard links to that state's
 * files (saved-state.bin, saved-disk.qcow2 — the overlay's backing file), and its record names
 * `restored_from`. Saved states themselves live in `<state_dir>/.saved-states/` (qemu-saved-state.ts),
 * which list() never shows: it is not under the instance prefix; snapshots in
 * `<state_dir>/snapshots/` (qemu-snapshot-files.ts), likewise. A machine forked from a snapshot
 * or put back to one holds snapshot-state.bin and hard links to the snapshot's disk layers
 * (`layer-<snapshot id>.qcow2`, saved-disk.qcow2), its record names `snapshot`; a snapshot of a
 * machine leaves it running on a new top overlay (`top-<snapshot id>.qcow2`, named by the
 * record's `overlay`).
 * The directory name is the identity, so list() needs nothing but readdir.
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError } from '@vmhub/core';

const SOURCE = 'provider-qemu';

export interface StateRecord {
  identity: string;
  lease_id: string;
  template: string;
  created_at: string;
  pid: number;
  /** Field 22 of /proc/<pid>/stat when qemu started. */
  pid_start_time: string;
  accel: string;
  /** Overlay file name inside the dir, when the golden is a disk. */
  overlay?: string;
  guest_agent: boolean;
  /** Guest TCP port → 127.0.0.1 port on the host (template forward_ports). */
  forwards?: Record<number, number>;
  /** The saved state (its directory name under `.saved-states`) this machine resumed from; absent after a cold boot. */
  restored_from?: string;
  /**
   * The snapshot (its identity) this machine was forked from or last put back to
   * (qemu-fork.ts, qemu-snapshot-restore.ts); like `restored_from`, ready() then waits for no
   * serial marker (the snapshot's machine had printed it).
   */
  snapshot?: string;
  /**
   * The guest's last reboot (qemu-restart.ts): when, and how long serial.log was right after the
   * reset, so ready() waits for the serial marker printed after it — a machine resumed from a saved
   * state or a snapshot boots anew after a reboot, and is waited on like a cold boot.
   */
  rebooted?: { at: string; serial_offset: number };
  /** The workspace (its identity) whose disk this qemu has attached (qemu-workspace.ts). */
  workspace?: string;
}

export const FILES = {
  record: 'identity.json',
  overlay: 'disk.qcow2',
  qmp: 'qmp.sock',
  console: 'console.sock',
  qga: 'qga.sock',
  serial: 'serial.log',
  log: 'qemu.log',
  /** Hard links to the saved state a restored machine resumed from (qemu-saved-state.ts). */
  savedState: 'saved-state.bin',
  savedDisk: 'saved-disk.qcow2',
  /** A hard link to the state file of the snapshot this machine was forked from or put back to. */
  snapshotState: 'snapshot-state.bin',
  /** The lease's cloud-init NoCloud seed (templates with provider_options.ssh; nocloud-seed.ts). */
  seed: 'seed.iso',
} as const;

const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

export function machineDir(stateDir: string, identity: string): string {
  if (!SAFE.test(identity)) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] identity "${identity}" is not a safe directory name (letters, digits, . _ -)`, { source: SOURCE });
  }
  return join(stateDir, identity);
}

export async function readRecord(dir: string): Promise<StateRecord | undefined> {
  return readJsonRecord<StateRecord>(join(dir, FILES.record), (rec) => typeof rec.identity === 'string' && Number.isInteger(rec.pid));
}

export async function writeRecord(dir: string, record: StateRecord): Promise<void> {
  await writeJsonRecord(dir, FILES.record, record, 0o600);
}

/** A JSON record file, when it parses and `valid` accepts it. */
export async function readJsonRecord<T>(file: string, valid: (rec: T) => boolean): Promise<T | undefined> {
  try {
    const rec = JSON.parse(await readFile(file, 'utf8')) as T;
    return rec && valid(rec) ? rec : undefined;
  } catch {
    return undefined;
  }
}

/** Write `dir/name` whole or not at all (a temp file renamed over it). */
export async function writeJsonRecord(dir: string, name: string, record: unknown, mode: number): Promise<void> {
  const tmp = join(dir, `.${name}.${randomUUID()}`);
  await writeFile(tmp, JSON.stringify(record, null, 2) + '\n', { mode });
  await rename(tmp, join(dir, name));
}

/** What a growing file (serial.log) holds from byte `from` on, at most 8 MiB, and where that read ended. */
export async function readFrom(path: string, from: number): Promise<{ data: Buffer; end: number }> {
  const fh = await open(path, 'r').catch(() => undefined);
  if (!fh) return { data: Buffer.alloc(0), end: from };
  try {
    const { size } = await fh.stat();
    const length = Math.max(0, Math.min(size - from, 8 * 1024 * 1024));
    const data = Buffer.alloc(length);
    if (length > 0) await fh.read(data, 0, length, from);
    return { data, end: from + length };
  } finally {
    await fh.close();
  }
}
