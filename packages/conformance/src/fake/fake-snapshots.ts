/**
 * The fake provider's snapshots, in the same shared directory as its machines (fake-store.ts):
 *   <dir>/snapshots/<fsnap-<16 hex>>/snapshot.json   the record: identity, source machine, template
 *   <dir>/snapshots/<fsnap-<16 hex>>/root/           a copy of the machine's filesystem (its desktop
 *                                                     state file included) when the snapshot was made
 * A restore puts that copy back in place of the machine's; a fork starts a new machine from it with
 * a fresh /etc/machine-id. Deleting re-reads the record and leaves one carrying another identity
 * alone. Every operation is a ledger line (op snapshot, restore, delete_snapshot).
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError, type DestroyOutcome, type OwnedSnapshot, type SnapshotRef, type SnapshotResult } from '@vmhub/core';
import { SOURCE, type FakeStore } from './fake-store.ts';

const SNAPSHOT_ID = /^fsnap-[0-9a-f]{16}$/;

export interface SnapshotRecord {
  identity: string;
  external_id: string;
  /** The machine it was taken of. */
  source: string;
  template: string;
  created_at: number;
}

export class FakeSnapshots {
  readonly #machines: FakeStore;

  constructor(machines: FakeStore) {
    this.#machines = machines;
  }

  #dir(externalId: string): string | undefined {
    return SNAPSHOT_ID.test(externalId) ? join(this.#machines.dir, 'snapshots', externalId) : undefined;
  }

  async read(externalId: string): Promise<SnapshotRecord | undefined> {
    const dir = this.#dir(externalId);
    if (!dir) return undefined;
    return readFile(join(dir, 'snapshot.json'), 'utf8').then((t) => JSON.parse(t) as SnapshotRecord, () => undefined);
  }

  /** Copy the machine's filesystem under a new snapshot carrying `identity`. */
  async take(machineId: string, identity: string, template: string, memory: boolean): Promise<SnapshotResult> {
    const external_id = `fsnap-${randomBytes(8).toString('hex')}`;
    const dir = this.#dir(external_id)!;
    await mkdir(dir, { recursive: true });
    await cp(this.#machines.sandbox(machineId), join(dir, 'root'), { recursive: true });
    const record: SnapshotRecord = { identity, external_id, source: machineId, template, created_at: Date.now() };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(record));
    await this.#machines.ledger({ op: 'snapshot', identity, external_id, pid: process.pid, at: Date.now() });
    return { identity, external_id, details: { source: machineId }, memory, size_bytes: await sizeOf(join(dir, 'root')) };
  }

  /** The snapshot `ref` names, read back and checked (NOT_FOUND when gone or carrying another identity). */
  async #checked(ref: SnapshotRef): Promise<SnapshotRecord> {
    const record = await this.read(ref.external_id);
    if (!record || record.identity !== ref.identity) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] snapshot ${ref.external_id} carrying ${ref.identity} does not exist (deleted?)`, { source: SOURCE });
    return record;
  }

  /** Put the snapshot's filesystem in place of the machine's. */
  async restore(machineId: string, machineIdentity: string, ref: SnapshotRef): Promise<void> {
    await this.#checked(ref);
    await this.#copyInto(ref.external_id, machineId);
    await this.#machines.ledger({ op: 'restore', identity: machineIdentity, external_id: machineId, pid: process.pid, at: Date.now(), snapshot: ref.identity });
  }

  /** A new machine's filesystem from the snapshot, with its own machine-id (a fork does not share the source's). */
  async fork(machineId: string, ref: SnapshotRef): Promise<void> {
    await this.#checked(ref);
    await this.#copyInto(ref.external_id, machineId);
    await mkdir(join(this.#machines.sandbox(machineId), 'etc'), { recursive: true });
    await writeFile(join(this.#machines.sandbox(machineId), 'etc', 'machine-id'), `${randomBytes(16).toString('hex')}\n`);
  }

  async #copyInto(snapshotId: string, machineId: string): Promise<void> {
    const root = this.#machines.sandbox(machineId);
    const staged = `${root}.restore-${randomBytes(4).toString('hex')}`;
    await cp(join(this.#dir(snapshotId)!, 'root'), staged, { recursive: true });
    await rm(root, { recursive: true, force: true });
    await rename(staged, root);
  }

  async delete(ref: SnapshotRef): Promise<DestroyOutcome> {
    const dir = this.#dir(ref.external_id);
    const record = await this.read(ref.external_id);
    if (!dir || !record) return 'already_gone';
    if (record.identity !== ref.identity) return 'identity_mismatch';
    const trash = join(this.#machines.dir, 'trash', `${ref.external_id}-${process.pid}-${randomBytes(4).toString('hex')}`);
    await mkdir(join(this.#machines.dir, 'trash'), { recursive: true });
    try {
      await rename(dir, trash);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'already_gone';
      throw err;
    }
    await this.#machines.ledger({ op: 'delete_snapshot', identity: ref.identity, external_id: ref.external_id, pid: process.pid, at: Date.now() });
    await rm(trash, { recursive: true, force: true });
    return 'destroyed';
  }

  async list(prefix: string): Promise<OwnedSnapshot[]> {
    const names = await readdir(join(this.#machines.dir, 'snapshots')).catch(() => [] as string[]);
    const out: OwnedSnapshot[] = [];
    for (const name of names) {
      const r = await this.read(name);
      if (r?.identity.startsWith(prefix)) out.push({ identity: r.identity, external_id: r.external_id, created_at: r.created_at, details: { source: r.source, template: r.template } });
    }
    return out;
  }
}

async function sizeOf(path: string): Promise<number> {
  const s = await stat(path);
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name));
  return total;
}
