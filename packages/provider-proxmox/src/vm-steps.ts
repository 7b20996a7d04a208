/**
 * Steps on one VM: configure, start, stop, delete, each polled to its task's exit status and
 * retried (bounded) while the VM or its storage is locked.
 */
import { VmhubError } from '@vmhub/core';
import { vmidFree } from './cluster.ts';
import { backoffMs, sleep, type Params, type PveClient } from './pve-client.ts';
import { isForbidden, isGone, isLock, SOURCE, toVmhubError } from './pve-errors.ts';
import { waitTask, type TaskWait } from './tasks.ts';

export interface StepSettings {
  lockRetries: number;
  retryBaseMs: number;
  task: Omit<TaskWait, 'what'>;
}

export async function withLockRetry<T>(what: string, s: StepSettings, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isLock(err) || attempt >= s.lockRetries) throw toVmhubError(err, what);
      await sleep(backoffMs(attempt, s.retryBaseMs * 2), s.task.signal);
    }
  }
}

export interface VmAt {
  client: PveClient;
  node: string;
  vmid: number;
}

const base = (vm: VmAt): string => `/nodes/${vm.node}/qemu/${vm.vmid}`;

export function readConfig(vm: VmAt, signal?: AbortSignal): Promise<Record<string, unknown>> {
  return vm.client.get<Record<string, unknown>>(`${base(vm)}/config`, {}, { signal });
}

/** PUT config is synchronous (null) — or, on some versions, a task id to follow. */
export async function configure(vm: VmAt, params: Params, s: StepSettings): Promise<void> {
  await withLockRetry(`configuring VM ${vm.vmid}`, s, async () => {
    const res = await vm.client.put<unknown>(`${base(vm)}/config`, params, { signal: s.task.signal });
    if (typeof res === 'string' && res.startsWith('UPID:')) await waitTask(vm.client, res, { ...s.task, what: `configuring VM ${vm.vmid}` });
  });
}

export async function status(vm: VmAt, signal?: AbortSignal): Promise<{ status: string; lock?: string; agent?: number | boolean }> {
  return vm.client.get(`${base(vm)}/status/current`, {}, { signal });
}

export async function start(vm: VmAt, s: StepSettings): Promise<void> {
  await withLockRetry(`starting VM ${vm.vmid}`, s, async () => {
    const upid = await vm.client.post<string>(`${base(vm)}/status/start`, {}, { signal: s.task.signal });
    try {
      await waitTask(vm.client, upid, { ...s.task, what: `starting VM ${vm.vmid}` });
    } catch (err) {
      // A start repeated after a lost answer finds the VM already running: that is success.
      if (VmhubError.is(err) && /already running/i.test(err.message)) return;
      throw err;
    }
  });
}

export async function stop(vm: VmAt, s: StepSettings): Promise<void> {
  await withLockRetry(`stopping VM ${vm.vmid}`, s, async () => {
    const upid = await vm.client.post<string>(`${base(vm)}/status/stop`, {}, { signal: s.task.signal });
    await waitTask(vm.client, upid, { ...s.task, what: `stopping VM ${vm.vmid}` });
  });
}

/** DELETE with purge and unreferenced disks, polled; true when the VM is confirmed gone. */
export async function remove(vm: VmAt, s: StepSettings): Promise<void> {
  await withLockRetry(`deleting VM ${vm.vmid}`, s, async () => {
    try {
      const upid = await vm.client.delete<string>(base(vm), { purge: true, 'destroy-unreferenced-disks': true }, { signal: s.task.signal });
      await waitTask(vm.client, upid, { ...s.task, what: `deleting VM ${vm.vmid}` });
    } catch (err) {
      // A repeated DELETE whose first try went through: the VM is (being) deleted — gone, or out
      // of the pool whose ACL gave us rights on it (403). waitGone tells which.
      if (isGone(err) || isForbidden(err) || (VmhubError.is(err) && /does not exist/i.test(err.message))) return;
      throw err;
    }
  });
  await waitGone(vm, s);
}

export async function waitGone(vm: VmAt, s: StepSettings): Promise<void> {
  const deadline = Date.now() + s.task.timeoutMs;
  for (;;) {
    try {
      await readConfig(vm, s.task.signal);
    } catch (err) {
      if (isGone(err)) return;
      if (!isForbidden(err)) throw toVmhubError(err, `confirming VM ${vm.vmid} is gone`);
      // 403: the VM left its pool (and the pool's ACL) — deleted, or still being deleted. The
      // VMID stays taken until the config is gone, and nextid?vmid= answers whatever we may see.
      const free = await vmidFree(vm.client, vm.vmid, s.task.signal).catch((e: unknown) => {
        throw toVmhubError(e, `checking whether VMID ${vm.vmid} is free`);
      });
      if (free) return;
    }
    if (Date.now() >= deadline) throw new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] VM ${vm.vmid} on ${vm.node} still exists after its delete task`, { source: SOURCE });
    await sleep(s.task.pollMs, s.task.signal);
  }
}
