/**
 * ready(): `process` (the recorded pid is this qemu) → `qmp` (monitor greets, capabilities,
 * query-status) → `guest` (serial marker and/or guest-agent ping). Every wait is bounded by the
 * template's ready_timeout_seconds and the caller's signal; a qemu that dies fails at once.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type MachineRef, type ReadyRequest } from '@vmhub/core';
import { templateOptions } from './options.ts';
import { verifyQemu } from './proc.ts';
import { QmpClient } from './qmp-client.ts';
import { recordFor, SOURCE, tail, type QemuRuntime } from './qemu-runtime.ts';
import { FILES, machineDir } from './state-dir.ts';

export async function ready(rt: QemuRuntime, machine: MachineRef, request: ReadyRequest): Promise<void> {
  const { template, stage, signal } = request;
  const t = templateOptions(template.provider_options);
  const deadline = Date.now() + (template.ready_timeout_seconds ?? 300) * 1000;
  const dir = machineDir(rt.stateDir, machine.identity);
  const failIfDead = async (where: string): Promise<void> => {
    const { record } = await recordFor(rt, machine);
    const v = record ? await verifyQemu(record.pid, record.pid_start_time, record.identity) : { verdict: 'gone' as const };
    if (v.verdict !== 'ours') {
      stage(where, 'failed', 'qemu exited');
      throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] qemu for ${machine.identity} exited during ${where}: ${await tail(join(dir, FILES.log), 600)} | serial: ${await tail(join(dir, FILES.serial), 600)}`, { source: SOURCE });
    }
  };
  const timedOut = async (where: string): Promise<never> => {
    stage(where, 'failed', 'timed out');
    throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] ${machine.identity} not ready after ${template.ready_timeout_seconds ?? 300} s at stage "${where}"; serial tail: ${await tail(join(dir, FILES.serial), 600)}`, { source: SOURCE });
  };
  const pause = (ms: number) => sleep(ms, undefined, { signal });

  stage('process', 'running');
  await failIfDead('process');
  stage('process', 'done');

  stage('qmp', 'running');
  for (;;) {
    signal.throwIfAborted();
    await failIfDead('qmp');
    try {
      // Connected for this check only: the monitor serves one client, and destroy (maybe from
      // the reaper, another process) needs it for a clean quit.
      const client = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: rt.qmpTimeoutMs, label: machine.identity });
      let st: { status?: string };
      try { st = (await client.execute('query-status', undefined, rt.qmpTimeoutMs)) as { status?: string }; } finally { client.close(); }
      stage('qmp', 'done', `vm ${st.status ?? 'unknown'}`);
      break;
    } catch {
      if (Date.now() > deadline) await timedOut('qmp');
      await pause(100);
    }
  }

  stage('guest', 'running');
  const probes: string[] = [];
  if (t.ready_marker) {
    const marker = Buffer.from(t.ready_marker);
    let offset = 0;
    for (;;) {
      signal.throwIfAborted();
      // Read only what is new (plus an overlap for a marker split across reads): a chatty guest's
      // serial log can grow large while booting.
      const fresh = await readFrom(join(dir, FILES.serial), Math.max(0, offset - marker.length));
      if (fresh.data.includes(marker)) break;
      offset = fresh.end;
      await failIfDead('guest');
      if (Date.now() > deadline) await timedOut('guest');
      await pause(250);
    }
    probes.push(`serial marker ${t.ready_marker}`);
  }
  if (t.guest_agent) {
    let last = '';
    for (;;) {
      signal.throwIfAborted();
      try {
        const qga = await QmpClient.connect(join(dir, FILES.qga), { protocol: 'qga', timeoutMs: 3_000, label: machine.identity });
        try { await qga.execute('guest-ping', undefined, 3_000); } finally { qga.close(); }
        break;
      } catch (err) {
        last = (err as Error).message;
        await failIfDead('guest');
        if (Date.now() > deadline) {
          stage('guest', 'failed', 'guest agent silent');
          throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] ${machine.identity}: the guest agent never answered guest-ping (${last}); is qemu-guest-agent installed and started in the golden?`, { source: SOURCE });
        }
        await pause(500);
      }
    }
    probes.push('guest agent answered guest-ping');
  }
  stage('guest', 'done', probes.length > 0 ? probes.join('; ') : 'no readiness probe configured (ready_marker or guest_agent)');
}

async function readFrom(path: string, from: number): Promise<{ data: Buffer; end: number }> {
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
