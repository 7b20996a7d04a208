/**
 * channel(): a new GuestChannel into a machine on every call — SSH with the lease's key to the
 * agent-reported address (or the template's address_override, optionally through a jump host),
 * or the guest agent when the template asks for it or no SSH key is known for the lease (e.g.
 * after a restart without a state dir). Nothing is pooled: core opens one channel per lease
 * session and closes it when the session ends, and readiness closes the one it probes with.
 */
import { openAdbChannel, openAdbChannelOver } from '@vmhub/channel-adb';
import { VmhubError, type GuestChannel, type MachineRef, type TemplateConfig } from '@vmhub/core';
import { AgentChannel } from './agent-channel.ts';
import { releaseOf } from './cluster.ts';
import { connectPort } from './proxmox-connect.ts';
import { SOURCE, toVmhubError } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { SshChannel } from './ssh-channel.ts';
import { templateOptions } from './template-options.ts';
import { resolveAddress } from './vm-address.ts';

export async function openChannel(rt: Runtime, machine: MachineRef, template: TemplateConfig, signal?: AbortSignal): Promise<GuestChannel> {
  const t = templateOptions(template);
  const vm = rt.vm(machine);
  if (t.channel === 'adb') return openAdbGuestChannel(rt, machine, template, t.adb_port);
  const keys = rt.secrets.get(machine.identity);
  if (t.channel === 'agent' || !keys) {
    const release = await releaseOf(vm.client).catch(() => 0);
    if (t.channel !== 'agent') rt.context.log('warn', 'no SSH key known for this lease: using the guest agent channel', { identity: machine.identity });
    // The agent runs as root: the channel acts as the desktop (cloud-init) user unless the template says otherwise.
    return new AgentChannel({ client: vm.client, node: vm.node, vmid: vm.vmid, release, user: t.agent_user ?? t.ciuser ?? rt.options.ciuser });
  }
  let address;
  try {
    address = await resolveAddress(template, vm, signal);
  } catch (err) {
    throw toVmhubError(err, `finding the address of VM ${vm.vmid}`);
  }
  if (!address) throw new VmhubError('LEASE_NOT_READY', `[vmhub] [${SOURCE}] VM ${vm.vmid} has no usable IPv4 address yet (guest agent network-get-interfaces)`, { source: SOURCE });
  // The host key the lease's first channel saw is the one every later channel must see.
  const ch = new SshChannel({
    ...address, user: t.ciuser ?? rt.options.ciuser, privateKey: keys.privateKey, jump: t.ssh_jump,
    hostKey: keys.hostKey, onHostKey: (fp) => rt.secrets.pinHostKey(machine.identity, fp),
  });
  try {
    await ch.open();
  } catch (err) {
    await ch.close(); // a half-open channel (jump host up, guest not) must not outlive the call
    throw err;
  }
  return ch;
}

/**
 * An Android-x86/AOSP VM: the host's adb server dials the guest's adbd. Directly at the VM's
 * address, or through a loopback forward over connect() when the template goes through an SSH
 * jump host.
 */
async function openAdbGuestChannel(rt: Runtime, machine: MachineRef, template: TemplateConfig, port: number): Promise<GuestChannel> {
  if (!templateOptions(template).ssh_jump) {
    const address = await resolveAddress(template, rt.vm(machine));
    if (!address) throw new VmhubError('LEASE_NOT_READY', `[vmhub] [${SOURCE}] VM ${rt.vm(machine).vmid} has no usable IPv4 address yet (guest agent network-get-interfaces)`, { source: SOURCE });
    return openAdbChannel({ address: { host: address.host, port } });
  }
  return openAdbChannelOver((p, signal) => connectPort(rt, machine, p, template, signal), port);
}
