/**
 * A lease's way into its machine's sshd, as the server finds it: the lease's provider, machine and
 * template, and the provider's sshAccess for that machine (the per-lease key it made at create,
 * the user, the guest port, the pinned host key). Used by `vmhub-server leases ssh` (to connect)
 * and by vm_lease_status (to say `access.ssh`, the command a person runs). Undefined when the
 * provider has no sshAccess or says none (a golden without sshd, a key this host does not hold),
 * or the lease has no machine or no template any more.
 */
import { quoteArg, type MachineRef, type Provider, type SshAccess, type TemplateConfig } from '@vmhub/core';
import { machineRef, type LeaseRow, type Store } from '@vmhub/store';
import { localPrincipal } from '../http/principal.ts';
import type { Registry } from '../registry.ts';

export interface LeaseSsh {
  provider: Provider;
  machine: MachineRef;
  template: TemplateConfig;
  access: SshAccess;
}

export async function leaseSsh(store: Store, registry: Registry, row: Pick<LeaseRow, 'id' | 'provider' | 'template'>): Promise<LeaseSsh | undefined> {
  const provider = registry.providers.get(row.provider);
  const template = registry.templates.get(row.template);
  if (!provider?.sshAccess || !template) return undefined;
  const stored = await store.getMachine(row.id);
  const machine = stored ? machineRef(stored) : undefined;
  if (!machine) return undefined;
  const access = await provider.sshAccess(machine, { template });
  return access ? { provider, machine, template, access } : undefined;
}

/**
 * The command that opens a shell on the lease's machine, as the README teaches it: run on the
 * vmhub host by the user running the server. `--principal` is named when the lease is not the
 * local user's (a lease made over HTTP belongs to its token's principal).
 */
export function sshCommandLine(leaseId: string, principal: string | null): string {
  const as = principal && principal !== localPrincipal() ? ` --principal ${quoteArg(principal)}` : '';
  return `vmhub-server leases ssh ${leaseId}${as}`;
}
