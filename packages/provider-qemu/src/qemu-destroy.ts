/**
 * destroy(): by identity, never by pid alone. The record must name the identity, the pid must be
 * alive with the recorded start time and carry `-name <identity>`; anything else is
 * identity_mismatch and left alone. Channels and consoles core still holds are not closed here:
 * they die with qemu, and closing them afterwards resolves at once.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type DestroyOutcome, type MachineRef } from '@vmhub/core';
import { verifyQemu } from './proc.ts';
import { QmpClient } from './qmp-client.ts';
import { locate, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { FILES, readRecord, type StateRecord } from './state-dir.ts';

export async function destroy(rt: QemuRuntime, machine: MachineRef): Promise<DestroyOutcome> {
  const dir = locate(rt, machine);
  if (!existsSync(dir)) return 'already_gone';
  const record = await readRecord(dir);
  if (!record || record.identity !== machine.identity || basename(dir) !== machine.identity) {
    rt.context.log('warn', 'state record does not carry this identity; left alone', { identity: machine.identity, dir, found: record?.identity });
    return 'identity_mismatch';
  }
  const v = await verifyQemu(record.pid, record.pid_start_time, record.identity);
  if (v.verdict === 'mismatch') {
    rt.context.log('warn', 'process named by the state record is not this machine; left alone', { identity: machine.identity, pid: record.pid, why: v.why });
    return 'identity_mismatch';
  }
  if (v.verdict === 'ours') await stop(rt, record, dir);
  await rm(dir, { recursive: true, force: true });
  rt.context.log('info', 'qemu destroyed', { identity: machine.identity, pid: record.pid, was_running: v.verdict === 'ours' });
  return v.verdict === 'ours' ? 'destroyed' : 'already_gone';
}

/** QMP quit, then SIGTERM, then SIGKILL, re-verifying the process before each signal. */
async function stop(rt: QemuRuntime, record: StateRecord, dir: string): Promise<void> {
  const gone = async (ms: number): Promise<boolean> => {
    const until = Date.now() + ms;
    for (;;) {
      if ((await verifyQemu(record.pid, record.pid_start_time, record.identity)).verdict === 'gone') return true;
      if (Date.now() >= until) return false;
      await sleep(100);
    }
  };
  let quitSent = false;
  try {
    // Short bound: when another process (a server's ready() during a reaper pass, an operator's
    // qmp-shell) holds the single-client monitor, the greeting never comes and signals take over.
    const client = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: Math.min(rt.qmpTimeoutMs, 2_000), label: record.identity });
    try {
      await client.execute('quit', undefined, 3_000).catch(() => undefined);
      quitSent = true;
    } finally {
      client.close();
    }
  } catch {
    // monitor unreachable (held by another process, or wedged): fall through to signals
  }
  if (quitSent && (await gone(rt.stopTimeoutMs))) return;
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    // Re-verify right before each signal: the pid must still be this qemu.
    if ((await verifyQemu(record.pid, record.pid_start_time, record.identity)).verdict !== 'ours') return;
    try { process.kill(record.pid, signal); } catch { return; }
    if (await gone(rt.stopTimeoutMs)) return;
  }
  throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] qemu pid ${record.pid} (${record.identity}) survived quit, SIGTERM and SIGKILL`, { source: SOURCE });
}
