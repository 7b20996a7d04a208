/**
 * Opening the GuestChannel of a machine: SSH with the lease's key to the agent-reported address
 * (or the template's address_override, optionally through a jump host); the guest agent when the
 * template asks for it or no SSH key is known for the lease (e.g. after a restart without a state
 * dir). Channels are pooled per machine.
 */
import { VmhubError, type MachineRef, type TemplateConfig } from '@vmhub/core';
import { AgentChannel } from './agent-channel.ts';
import { pickAddress, parseHostPort, type AgentInterface } from './address.ts';
import { releaseOf } from './cluster.ts';
import type { VmAt } from './lifecycle.ts';
import { SOURCE, toVmhubError } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { SshChannel } from './ssh-channel.ts';
import { templateOptions } from './template-options.ts';

export async function vmAt(rt: Runtime, machine: MachineRef): Promise<VmAt> {
  const { client, node, vmid } = rt.locate(machine);
  if (!client || !node) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] machine ${machine.identity} names no known endpoint/node`, { source: SOURCE });
  return { client, node, vmid };
}

/** Ask the agent for the guest's first usable IPv4; undefined while it has none. */
export async function agentAddress(vm: VmAt, signal?: AbortSignal): Promise<string | undefined> {
  const r = await vm.client.get<{ result?: AgentInterface[] }>(`/nodes/${vm.node}/qemu/${vm.vmid}/agent/network-get-interfaces`, {}, { signal });
  return pickAddress(r.result);
}

export async function resolveAddress(rt: Runtime, machine: MachineRef, template: TemplateConfig, vm: VmAt, signal?: AbortSignal): Promise<{ host: string; port: number } | undefined> {
  const t = templateOptions(template);
  const state = rt.state(machine.identity);
  if (t.address_override) return (state.address = parseHostPort(t.address_override, t.ssh_port));
  if (state.address) return state.address;
  const ip = await agentAddress(vm, signal);
  if (ip) state.address = { host: ip, port: t.ssh_port };
  return state.address;
}

export async function openChannel(rt: Runtime, machine: MachineRef, template: TemplateConfig, signal?: AbortSignal): Promise<SshChannel | AgentChannel> {
  const state = rt.state(machine.identity);
  if (state.channel && !state.channel.closed) return state.channel as SshChannel | AgentChannel;
  const t = templateOptions(template);
  const vm = await vmAt(rt, machine);
  const keys = rt.secrets.get(machine.identity);
  if (t.channel === 'agent' || !keys) {
    const release = await releaseOf(vm.client).catch(() => 0);
    const ch = new AgentChannel({ client: vm.client, node: vm.node, vmid: vm.vmid, release });
    if (t.channel !== 'agent') rt.context.log('warn', 'no SSH key known for this lease: using the guest agent channel', { identity: machine.identity });
    state.channel = ch;
    return ch;
  }
  let address;
  try {
    address = await resolveAddress(rt, machine, template, vm, signal);
  } catch (err) {
    throw toVmhubError(err, `finding the address of VM ${vm.vmid}`);
  }
  if (!address) throw new VmhubError('LEASE_NOT_READY', `[vmhub] [${SOURCE}] VM ${vm.vmid} has no usable IPv4 address yet (guest agent network-get-interfaces)`, { source: SOURCE });
  const ch = new SshChannel({ ...address, user: t.ciuser ?? rt.options.ciuser, privateKey: keys.privateKey, jump: t.ssh_jump });
  await ch.open();
  state.channel = ch;
  return ch;
}
