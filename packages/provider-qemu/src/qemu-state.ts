/**
 * state(): is the lease's qemu still there and running? Verified like destroy verifies it: the
 * state record must name the identity, and its pid must be alive, started at the recorded time and
 * carry `-name <identity>` — anything else (no record, another identity, a reused pid) is 'gone'
 * for this lease. A live qemu is 'stopped' when its process is stopped (SIGSTOP) or QMP says the
 * guest does not run (paused, shut down, crashed); when the lifecycle monitor is busy (another
 * client holds it) the live, verified process counts as 'running'. Never throws for a missing one.
 */
import { join } from 'node:path';
import type { MachineRef, MachineState } from '@vmhub/core';
import { procInfo, verifyQemu } from './proc.ts';
import { QmpClient } from './qmp-client.ts';
import { findByIdentity, type QemuRuntime } from './qemu-runtime.ts';
import { FILES, readRecord } from './state-dir.ts';

export async function state(rt: QemuRuntime, machine: MachineRef): Promise<MachineState> {
  const found = await findByIdentity(rt.stateDir, machine, readRecord);
  if (found.verdict !== 'ours') return 'gone';
  const { dir, record } = found;
  if ((await verifyQemu(record.pid, record.pid_start_time, record.identity)).verdict !== 'ours') return 'gone';
  const proc = await procInfo(record.pid);
  if (proc?.state === 'T' || proc?.state === 't') return 'stopped';
  let client: QmpClient | undefined;
  try {
    client = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: Math.min(rt.qmpTimeoutMs, 1_000), label: record.identity });
    const st = (await client.execute('query-status', undefined, 2_000)) as { running?: boolean; status?: string };
    return st.running === false ? 'stopped' : 'running';
  } catch {
    return 'running';
  } finally {
    client?.close();
  }
}
