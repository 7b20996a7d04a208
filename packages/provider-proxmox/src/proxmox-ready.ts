/**
 * Readiness, stage by stage (shown in vm_lease_status): clone (verified: the VM carries the
 * identity tag) → start (task polled) → agent (guest-agent ping answers) → keys (a fork only:
 * its authorized_keys replaced with the lease's own key, proxmox-fork-keys.ts, so the source
 * lease's key never opens it) → address (first usable IPv4, or the template's override) → channel (SSH connects and runs `true`, or the agent runs
 * it). Every wait is bounded by the template's ready_timeout_seconds. The channel it probes with
 * is closed again: the lease session opens its own.
 */
import { VmhubError, type MachineRef, type ReadyRequest } from '@vmhub/core';
import { AgentChannel } from './agent-channel.ts';
import { splitTags } from './cluster.ts';
import { forkedFrom, replaceForkKeys } from './proxmox-fork-keys.ts';
import { openChannel } from './proxmox-channel.ts';
import { agentAddress, resolveAddress } from './vm-address.ts';
import { sleep } from './pve-client.ts';
import { isPveApiError, SOURCE, toVmhubError } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { identityTag, templateOptions } from './template-options.ts';
import { readConfig, start, status } from './vm-steps.ts';

class StageTimeout extends Error {}

export async function runReady(rt: Runtime, machine: MachineRef, req: ReadyRequest): Promise<void> {
  const t = templateOptions(req.template);
  const timeoutMs = (req.template.ready_timeout_seconds ?? 300) * 1000;
  const deadline = Date.now() + timeoutMs;
  const signal = AbortSignal.any([req.signal, AbortSignal.timeout(timeoutMs)]);
  const vm = rt.vm(machine);
  const poll = rt.options.ready_poll_ms;

  const stage = async <T>(name: string, fn: () => Promise<{ value: T; detail?: string }>): Promise<T> => {
    req.stage(name, 'running');
    try {
      const { value, detail } = await fn();
      req.stage(name, 'done', detail);
      return value;
    } catch (err) {
      const e = err instanceof StageTimeout || (signal.aborted && !req.signal.aborted)
        ? new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] VM ${vm.vmid} was not ready within ${timeoutMs / 1000} s: stage "${name}" ${err instanceof Error ? err.message : String(err)}`, { source: SOURCE, details: { stage: name, vmid: vm.vmid } })
        : toVmhubError(err, `readiness stage "${name}" of VM ${vm.vmid}`);
      req.stage(name, 'failed', e.message);
      throw e;
    }
  };

  /** Repeat `probe` until it returns a value; `fatal` errors stop at once. */
  const until = async <T>(probe: () => Promise<T | undefined>, fatal: (err: unknown) => boolean): Promise<T> => {
    let last = 'no answer yet';
    for (;;) {
      try {
        const v = await probe();
        if (v !== undefined) return v;
      } catch (err) {
        if (fatal(err)) throw err;
        last = err instanceof Error ? err.message : String(err);
      }
      if (Date.now() + poll >= deadline) throw new StageTimeout(`(last: ${last.trim()})`);
      await sleep(poll, req.signal);
    }
  };

  const config = await stage('clone', async () => {
    const c = await until(async () => {
      const config = await readConfig(vm, signal);
      if (!splitTags(config.tags as string | undefined).includes(identityTag(machine.identity))) {
        throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] VM ${vm.vmid} does not carry the identity tag ${identityTag(machine.identity)}`, { source: SOURCE });
      }
      return config;
    }, (err) => !notYet(err));
    return { value: c, detail: `VM ${vm.vmid} on ${vm.node}` };
  });

  await stage('start', async () => {
    await until(async () => {
      const st = await status(vm, signal);
      if (st.status !== 'running') await start(vm, rt.steps(signal));
      return true;
    }, (err) => !notYet(err));
    return { value: undefined, detail: 'running' };
  });

  await stage('agent', async () => {
    await until(async () => {
      await vm.client.post(`/nodes/${vm.node}/qemu/${vm.vmid}/agent/ping`, {}, { signal });
      return true;
    }, (err) => !notYet(err));
    return { value: undefined, detail: 'guest agent answers' };
  });

  // A fork's disk still authorizes the source lease's key: replaced before anything dials SSH.
  const source = forkedFrom(machine, config);
  if (source !== undefined && t.channel !== 'adb') {
    await stage('keys', async () => ({ value: undefined, detail: await replaceForkKeys(rt, machine, req.template, source) }));
  }

  const address = await stage('address', async () => {
    if (t.address_override) {
      // Still ask the agent, so a guest whose network never came up is noticed in the log.
      const seen = await agentAddress(vm, signal).catch(() => undefined);
      const a = await resolveAddress(req.template, vm, signal);
      return { value: a, detail: `${a?.host}:${a?.port} (override; agent reports ${seen ?? 'none'})` };
    }
    const a = await until(() => resolveAddress(req.template, vm, signal), (err) => notYet(err) === false);
    return { value: a, detail: `${a.host}:${a.port}` };
  });

  await stage('channel', async () => {
    const kind = await until(async () => {
      const ch = await openChannel(rt, machine, req.template, signal);
      const agent = ch instanceof AgentChannel;
      try {
        const r = agent ? await ch.exec(['true'], { timeoutMs: 15_000 }, true) : await ch.exec(['true'], { timeoutMs: 15_000 });
        if (r.exit_code !== 0) throw new Error(`probe \`true\` exited ${r.exit_code}${r.timed_out ? ' (timed out)' : ''}`);
      } finally {
        await ch.close();
      }
      return agent ? 'guest agent' : `ssh ${address?.host}:${address?.port}`;
    }, (err) => VmhubError.is(err) && err.code === 'POLICY_DENIED');
    return { value: undefined, detail: kind };
  });
}

/** Errors that mean "the guest is still booting" (true) versus "this will never work" (false). */
function notYet(err: unknown): boolean {
  if (isPveApiError(err)) {
    if (err.status === 403 || err.status === 401 || err.status === 400) return false;
    if (/No QEMU guest agent configured/i.test(err.text)) return false;
    return true;
  }
  if (VmhubError.is(err)) return err.retryable;
  return true;
}
