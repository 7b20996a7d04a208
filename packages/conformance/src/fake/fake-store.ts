/**
 * The fake provider's on-disk state. Everything lives in files under one directory so that
 * several processes (server processes, the reaper, a test) see the same machines:
 *   <dir>/identities/<identity>        external id of the live machine (created O_EXCL: one wins)
 *   <dir>/machines/<external id>/machine.json   the record: identity, lease, template, state
 *   <dir>/machines/<external id>/root/          the guest's sandboxed filesystem
 *   <dir>/snapshots/…                   snapshots (fake-snapshots.ts)
 *   <dir>/ledger.log                    one JSON line per create/destroy/snapshot op (O_APPEND)
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError } from '@vmhub/core';

export const SOURCE = 'provider-fake';
export const GUEST_HOME = '/home/user';
const EXTERNAL_ID = /^fake-[0-9a-f]{16}$/;
const IDENTITY = /^[A-Za-z0-9._-]{1,200}$/;
/** A claim with no machine recorded after this long was left by a process that died. */
const STALE_MS = 5000;

/** 'stopped': stopped behind vmhub's back (tests write it to the record, as `docker stop` would). */
export type MachineState = 'created' | 'running' | 'stopped';

export interface MachineRecord {
  identity: string;
  external_id: string;
  lease_id: string;
  template: string;
  created_at: number;
  state: MachineState;
  pid: number;
  /** When it last restarted (Provider.restart), ms; absent: never. */
  booted_at?: number;
}

export interface LedgerEntry {
  /** snapshot, restore, delete_snapshot: fake-snapshots.ts (a snapshot's own identity and id; a restore's machine). */
  op: 'create' | 'destroy' | 'snapshot' | 'restore' | 'delete_snapshot';
  identity: string;
  external_id: string;
  pid: number;
  at: number;
  /** restore: the snapshot's identity. */
  snapshot?: string;
}

export function defaultFakeDir(): string {
  return process.env.VMHUB_FAKE_DIR || join(tmpdir(), 'vmhub-fake');
}

export class FakeStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  machineDir(externalId: string): string {
    if (!EXTERNAL_ID.test(externalId)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] "${externalId}" is not a fake machine id (fake-<16 hex>)`, { source: SOURCE });
    return join(this.dir, 'machines', externalId);
  }

  sandbox(externalId: string): string {
    return join(this.machineDir(externalId), 'root');
  }

  async read(externalId: string): Promise<MachineRecord | undefined> {
    try {
      return JSON.parse(await readFile(join(this.machineDir(externalId), 'machine.json'), 'utf8')) as MachineRecord;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return undefined;
      throw err;
    }
  }

  readSync(externalId: string): MachineRecord | undefined {
    try {
      return JSON.parse(readFileSync(join(this.machineDir(externalId), 'machine.json'), 'utf8')) as MachineRecord;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return undefined;
      throw err;
    }
  }

  async write(record: MachineRecord): Promise<void> {
    const file = join(this.machineDir(record.external_id), 'machine.json');
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(tmp, JSON.stringify(record));
    await rename(tmp, file);
  }

  /**
   * Create the machine for `identity`, or return the one that already carries it. The identity
   * index file is created with O_EXCL, so across processes exactly one creator wins.
   */
  async create(identity: string, leaseId: string, template: string): Promise<{ record: MachineRecord; created: boolean }> {
    if (!IDENTITY.test(identity)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] identity "${identity}" has characters a file name cannot carry`, { source: SOURCE });
    await mkdir(join(this.dir, 'identities'), { recursive: true });
    await mkdir(join(this.dir, 'machines'), { recursive: true });
    const index = join(this.dir, 'identities', identity);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await writeFile(index, '', { flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const existing = await this.waitForIndexed(index, identity);
        if (existing) return { record: existing, created: false };
        continue;
      }
      const externalId = `fake-${randomBytes(8).toString('hex')}`;
      const record: MachineRecord = { identity, external_id: externalId, lease_id: leaseId, template, created_at: Date.now(), state: 'created', pid: process.pid };
      await mkdir(join(this.sandbox(externalId), GUEST_HOME.slice(1)), { recursive: true });
      await mkdir(join(this.sandbox(externalId), 'tmp'), { recursive: true });
      await this.write(record);
      await this.ledger({ op: 'create', identity, external_id: externalId, pid: process.pid, at: Date.now() });
      await writeFile(index, externalId);
      return { record, created: true };
    }
    throw new VmhubError('LOCK_CONTENTION', `[vmhub] [${SOURCE}] could not claim ${identity}: other processes keep creating and destroying it`, { source: SOURCE });
  }

  /**
   * Another process holds the identity: wait (bounded) until its machine is recorded. Undefined
   * means "claim again": the index vanished (destroyed meanwhile), or its claimer died between
   * claiming and recording (no record after STALE_MS) and this process moved the claim away.
   */
  private async waitForIndexed(index: string, identity: string): Promise<MachineRecord | undefined> {
    const deadline = Date.now() + STALE_MS + 1000;
    while (Date.now() < deadline) {
      const content = await readFile(index, 'utf8').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : ''));
      if (content === undefined) return undefined;
      const externalId = content.trim();
      if (externalId) {
        const record = await this.read(externalId).catch(() => undefined);
        if (record?.identity === identity) return record;
      }
      const age = Date.now() - ((await stat(index).catch(() => undefined))?.mtimeMs ?? Date.now());
      if (age > STALE_MS) {
        await mkdir(join(this.dir, 'trash'), { recursive: true });
        await rename(index, join(this.dir, 'trash', `claim-${identity}-${randomBytes(4).toString('hex')}`)).catch(() => undefined);
        return undefined;
      }
      await sleep(25);
    }
    throw new VmhubError('LOCK_CONTENTION', `[vmhub] [${SOURCE}] another process is creating ${identity} and has not finished after ${STALE_MS / 1000} s`, { source: SOURCE });
  }

  /** Find the live machine carrying `identity` (through the index). */
  async byIdentity(identity: string): Promise<MachineRecord | undefined> {
    if (!IDENTITY.test(identity)) return undefined;
    const externalId = (await readFile(join(this.dir, 'identities', identity), 'utf8').catch(() => '')).trim();
    if (!externalId) return undefined;
    const record = await this.read(externalId);
    return record?.identity === identity ? record : undefined;
  }

  /**
   * Destroy after re-reading the record and comparing identities. The machine directory is
   * renamed away first (atomic): of two concurrent destroys only one sees 'destroyed'.
   */
  async destroy(identity: string, externalId: string): Promise<'destroyed' | 'already_gone' | 'identity_mismatch'> {
    if (!EXTERNAL_ID.test(externalId)) return 'already_gone';
    const record = await this.read(externalId);
    if (!record) return 'already_gone';
    if (record.identity !== identity) return 'identity_mismatch';
    const trash = join(this.dir, 'trash');
    await mkdir(trash, { recursive: true });
    const moved = join(trash, `${externalId}-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      await rename(this.machineDir(externalId), moved);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'already_gone';
      throw err;
    }
    await rm(join(this.dir, 'identities', identity), { force: true });
    await this.ledger({ op: 'destroy', identity, external_id: externalId, pid: process.pid, at: Date.now() });
    await rm(moved, { recursive: true, force: true });
    return 'destroyed';
  }

  async list(): Promise<MachineRecord[]> {
    let names: string[];
    try {
      names = await readdir(join(this.dir, 'machines'));
    } catch {
      return [];
    }
    // Synchronous reads: a bulk listing of thousands of small files costs ~4 thread-pool round
    // trips per file when awaited one by one (2 s for 10 000 machines, the reaper benchmark's size).
    const out: MachineRecord[] = [];
    for (const name of names) {
      if (!EXTERNAL_ID.test(name)) continue;
      const record = this.readSync(name);
      if (record) out.push(record);
    }
    return out.sort((a, b) => a.created_at - b.created_at);
  }

  async ledger(entry: LedgerEntry): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // One short line per write with O_APPEND: lines from several processes never interleave.
    await appendFile(join(this.dir, 'ledger.log'), `${JSON.stringify(entry)}\n`, { flag: 'a' });
  }
}

/** Every create/destroy the fake provider performed in `dir`, from all processes, oldest first. */
export async function readFakeLedger(dir: string = defaultFakeDir()): Promise<LedgerEntry[]> {
  const text = await readFile(join(dir, 'ledger.log'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as LedgerEntry);
}

/** Stop a fake machine behind vmhub's back, as `docker stop` would (tests of lost machines). */
export async function stopFakeMachine(dir: string, externalId: string): Promise<void> {
  const store = new FakeStore(dir);
  const record = await store.read(externalId);
  if (!record) throw new Error(`no fake machine ${externalId} in ${dir}`);
  await store.write({ ...record, state: 'stopped' });
}
