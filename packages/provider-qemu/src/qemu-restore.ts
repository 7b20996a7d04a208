/**
 * Migration to and from a file. migrateTo: the state of a stopped VM to a file (QMP `migrate` to
 * `exec:cat > file`, polled until "completed"; the saved-state maker and snapshots use it).
 *
 * Resuming a lease's qemu from a saved state (or a snapshot). The qemu was started with the saving VM's device set
 * plus `-incoming defer` (qemu-argv.ts), holding the state file open as fd 3 (qemu-spawn.ts
 * INCOMING_FD); this connects to its provider monitor, sends `migrate-incoming fd:3`, polls `query-migrate` until "completed", and
 * makes sure the VM runs (qemu resumes by itself after an incoming migration when started without
 * -S; `cont` otherwise). The monitor is closed again before returning: it serves one client and
 * ready()/destroy need it.
 *
 * Fails with PROVISION_FAILED (the caller falls back to a cold boot) when the migration fails, the
 * qemu exits (QEMU 7.2 exits when an incoming migration fails: a corrupt or foreign state file), or
 * the bound passes.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { quoteArg, VmhubError } from '@vmhub/core';
import { verifyQemu } from './proc.ts';
import { QmpClient } from './qmp-client.ts';
import { SOURCE, tail, type QemuRuntime } from './qemu-runtime.ts';
import { INCOMING_FD, type Spawned } from './qemu-spawn.ts';
import { FILES } from './state-dir.ts';

interface MigrateInfo {
  status?: string;
  'error-desc'?: string;
}

export async function resumeFromState(rt: QemuRuntime, dir: string, proc: Spawned & { identity: string }, stateFile: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  const fail = async (why: string): Promise<never> => {
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] resuming ${proc.identity} from ${stateFile} failed: ${why}${(await tail(join(dir, FILES.log), 400)) ? ` | qemu: ${await tail(join(dir, FILES.log), 400)}` : ''}`, { source: SOURCE });
  };
  const alive = async (): Promise<boolean> => (await verifyQemu(proc.pid, proc.startTime, proc.identity)).verdict === 'ours';
  let client: QmpClient | undefined;
  while (!client) {
    try {
      client = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: Math.max(100, Math.min(rt.qmpTimeoutMs, until - Date.now())), label: proc.identity });
    } catch (err) {
      if (!(await alive())) await fail('qemu exited before its monitor answered');
      if (Date.now() > until) await fail(`its monitor did not answer: ${(err as Error).message}`);
      await sleep(5);
    }
  }
  try {
    await client.execute('migrate-incoming', { uri: `fd:${INCOMING_FD}` }, rt.qmpTimeoutMs);
    for (;;) {
      let info: MigrateInfo;
      try {
        info = (await client.execute('query-migrate', undefined, rt.qmpTimeoutMs)) as MigrateInfo;
      } catch (err) {
        if (!(await alive())) await fail('qemu exited while loading the state (corrupt, truncated or made by another qemu/device set)');
        throw err;
      }
      if (info.status === 'completed') break;
      if (info.status === 'failed' || info.status === 'cancelled') await fail(`incoming migration ${info.status}${info['error-desc'] ? `: ${info['error-desc']}` : ''}`);
      if (Date.now() > until) await fail(`incoming migration still "${info.status ?? '?'}" after ${timeoutMs} ms`);
      await sleep(5);
    }
    const st = (await client.execute('query-status', undefined, rt.qmpTimeoutMs)) as { status?: string };
    if (st.status !== 'running') await client.execute('cont', undefined, rt.qmpTimeoutMs);
  } catch (err) {
    if (VmhubError.is(err) && err.code === 'PROVISION_FAILED') throw err;
    return fail((err as Error).message);
  } finally {
    client.close();
  }
}

/**
 * Migrate the stopped VM's state to `file`, polling until completed; aborting `signal` cancels the
 * migration. A failed or cancelled migration is PROVISION_FAILED naming qemu's reason.
 */
export async function migrateTo(rt: QemuRuntime, client: QmpClient, file: string, signal: AbortSignal): Promise<void> {
  // The default bandwidth cap is for live migration over a network; this is a local file.
  await client.execute('migrate-set-parameters', { 'max-bandwidth': 64 * 1024 ** 3 }, rt.qmpTimeoutMs);
  await client.execute('migrate', { uri: `exec:cat > ${quoteArg(file)}` }, rt.qmpTimeoutMs);
  for (;;) {
    const info = (await client.execute('query-migrate', undefined, rt.qmpTimeoutMs)) as MigrateInfo;
    if (info.status === 'completed') return;
    if (info.status === 'failed' || info.status === 'cancelled') {
      throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] saving the machine's state failed: migrate ${info.status}${info['error-desc'] ? `: ${info['error-desc']}` : ''}`, { source: SOURCE });
    }
    if (signal.aborted) {
      await client.execute('migrate_cancel', undefined, rt.qmpTimeoutMs).catch(() => undefined);
      signal.throwIfAborted();
    }
    await sleep(5);
  }
}
