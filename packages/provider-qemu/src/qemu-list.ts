/**
 * list(): every state directory under this instance's prefix, for the reaper's orphan sweep,
 * with whether its qemu still runs (details.process: ours | gone | mismatch).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { OwnedMachine } from '@vmhub/core';
import { verifyQemu } from './proc.ts';
import type { QemuRuntime } from './qemu-runtime.ts';
import { readRecord } from './state-dir.ts';

export async function list(rt: QemuRuntime): Promise<OwnedMachine[]> {
  const names = await readdir(rt.stateDir).catch(() => [] as string[]);
  const out: OwnedMachine[] = [];
  for (const name of names) {
    if (!name.startsWith(rt.context.identityPrefix)) continue;
    const dir = join(rt.stateDir, name);
    const record = await readRecord(dir);
    let created = record ? Date.parse(record.created_at) : NaN;
    if (Number.isNaN(created)) created = (await stat(dir).catch(() => undefined))?.mtimeMs ?? Date.now();
    const alive = record ? (await verifyQemu(record.pid, record.pid_start_time, name)).verdict : 'gone';
    out.push({ identity: name, external_id: dir, created_at: created, details: { pid: record?.pid, state_dir: dir, process: alive } });
  }
  return out;
}
