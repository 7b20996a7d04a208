/**
 * Proxmox answers async calls with 200 + a UPID even when the work will fail: success is only a
 * task that reached `stopped` with exit status `OK` (or `WARNINGS: n`). Every task is polled here,
 * with a deadline.
 */
import { VmhubError } from '@vmhub/core';
import { sleep, type PveClient } from './pve-client.ts';
import { isPveApiError, isTransient, SOURCE, taskError } from './pve-errors.ts';

const UPID = /^UPID:([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$/;

export function upidNode(upid: string): string {
  const m = UPID.exec(upid);
  if (!m) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] Proxmox returned "${upid.slice(0, 120)}" where a task id (UPID) was expected`, { source: SOURCE });
  return m[1];
}

export function taskSucceeded(exitstatus: string | undefined): boolean {
  return exitstatus === 'OK' || /^WARNINGS: \d+$/.test(exitstatus ?? '');
}

export interface TaskWait {
  what: string;
  pollMs: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

interface TaskStatus {
  status: 'running' | 'stopped';
  exitstatus?: string;
}

/** Resolves when the task stopped with OK; throws a mapped VmhubError otherwise. */
export async function waitTask(client: PveClient, upid: unknown, wait: TaskWait): Promise<void> {
  if (typeof upid !== 'string') throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] ${wait.what}: Proxmox returned no task id`, { source: SOURCE });
  const node = upidNode(upid);
  const deadline = Date.now() + wait.timeoutMs;
  const path = `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`;
  let misses = 0;
  for (;;) {
    let st: TaskStatus;
    try {
      st = await client.get<TaskStatus>(path, {}, { signal: wait.signal });
      misses = 0;
    } catch (err) {
      // The task runs on whether or not we hear about it: keep asking (bounded) before giving up.
      if (!(isPveApiError(err) && isTransient(err)) || ++misses > 5 || Date.now() >= deadline) throw err;
      await sleep(wait.pollMs, wait.signal);
      continue;
    }
    if (st.status === 'stopped') {
      if (taskSucceeded(st.exitstatus)) return;
      throw taskError(wait.what, st.exitstatus ?? 'unexpected status', upid, client.endpoint.id);
    }
    if (Date.now() >= deadline) {
      throw new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] ${wait.what}: task ${upid} still running after ${Math.round(wait.timeoutMs / 1000)} s`, { source: SOURCE, details: { upid } });
    }
    await sleep(Math.min(wait.pollMs, Math.max(0, deadline - Date.now())), wait.signal);
  }
}
