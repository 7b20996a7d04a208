/**
 * sshAccess for a Proxmox VM: what the provider already holds for the lease — the key pair
 * cloud-init installed for the template's `ciuser` (made at create, kept in LeaseSecrets, dropped
 * at destroy) and the host key the lease's first SSH connection pinned (the SSH channel's, or
 * `vmhub-server leases ssh`'s). The port is the one connect() must dial: the guest's `ssh_port`, or
 * the port of `address_override` (connect dials its host). Undefined for an adb template (an
 * Android-x86 VM has no sshd) and for a lease whose key this host does not hold (e.g. a restart
 * without a state directory).
 */
import type { MachineRef, SshAccess, TemplateConfig } from '@vmhub/core';
import { parseHostPort } from './address.ts';
import type { Runtime } from './runtime.ts';
import { templateOptions } from './template-options.ts';

export function proxmoxSshAccess(rt: Runtime, machine: MachineRef, template: TemplateConfig): SshAccess | undefined {
  const t = templateOptions(template);
  if (t.channel === 'adb') return undefined;
  const port = t.address_override ? parseHostPort(t.address_override, t.ssh_port).port : t.ssh_port;
  return rt.secrets.sshAccess(machine.identity, { user: t.ciuser ?? rt.options.ciuser, port });
}
