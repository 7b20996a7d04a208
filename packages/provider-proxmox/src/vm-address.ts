/**
 * Where a VM is reached: the first usable IPv4 its guest agent reports, or the template's
 * address_override. Shared by channel() (SSH, adb), connect() and readiness.
 */
import type { TemplateConfig } from '@vmhub/core';
import { pickAddress, parseHostPort, type AgentInterface } from './address.ts';
import { templateOptions } from './template-options.ts';
import type { VmAt } from './vm-steps.ts';

/** Ask the agent for the guest's first usable IPv4; undefined while it has none. */
export async function agentAddress(vm: VmAt, signal?: AbortSignal): Promise<string | undefined> {
  const r = await vm.client.get<{ result?: AgentInterface[] }>(`/nodes/${vm.node}/qemu/${vm.vmid}/agent/network-get-interfaces`, {}, { signal });
  return pickAddress(r.result);
}

/** Where SSH dials: the template's override, else the address the guest agent reports now. */
export async function resolveAddress(template: TemplateConfig, vm: VmAt, signal?: AbortSignal): Promise<{ host: string; port: number } | undefined> {
  const t = templateOptions(template);
  if (t.address_override) return parseHostPort(t.address_override, t.ssh_port);
  const ip = await agentAddress(vm, signal);
  return ip ? { host: ip, port: t.ssh_port } : undefined;
}
