/**
 * Lease → machine → adapter binding, with the lease's GuestChannel and console opened once and
 * pooled for the life of the lease in this process (an action never pays for a new connection).
 */
import { VmhubError, type ConsoleHandle, type GuestChannel } from '@vmhub/core';
import type { LeaseBinding } from '@vmhub/core/router';
import type { Store } from '@vmhub/store';
import type { LeaseManager } from './leases/manager.ts';
import { machineRef } from './leases/teardown.ts';
import type { Registry } from './registry.ts';

export class Bindings {
  readonly #channels = new Map<string, Promise<GuestChannel>>();
  readonly #consoles = new Map<string, Promise<ConsoleHandle>>();
  readonly #store: Store;
  readonly #registry: Registry;
  #leases!: LeaseManager;

  constructor(store: Store, registry: Registry) {
    this.#store = store;
    this.#registry = registry;
  }

  attach(leases: LeaseManager): void {
    this.#leases = leases;
  }

  async bind(leaseId: string, signal: AbortSignal): Promise<LeaseBinding> {
    const lease = await this.#leases.get(leaseId);
    switch (lease.status) {
      case 'ready': break;
      case 'provisioning':
      case 'starting':
        throw new VmhubError('LEASE_NOT_READY', `lease ${leaseId} is ${lease.status}; wait with vm_lease_status {wait_seconds: 20}`);
      case 'failed':
        throw new VmhubError('PROVISION_FAILED', `lease ${leaseId} failed: ${lease.error_message ?? lease.error_code ?? 'unknown'}`, { hint: 'Create a new lease (vm_lease_create).' });
      default:
        throw new VmhubError('LEASE_EXPIRED', `lease ${leaseId} is ${lease.status}`);
    }
    const template = this.#leases.template(lease.template);
    const row = await this.#store.getMachine(leaseId);
    if (!row) throw new VmhubError('INTERNAL', `lease ${leaseId} is ready but has no machine record`);
    const machine = machineRef(row);
    const provider = this.#registry.providers.get(template.provider);
    const adapter = this.#registry.adapterFor(template);
    const channel = () => {
      let c = this.#channels.get(leaseId);
      if (!c) {
        if (!provider?.channel) return Promise.reject(new VmhubError('CAPABILITY_UNAVAILABLE', `provider "${template.provider}" offers no guest channel for template ${template.id}`));
        c = provider.channel(machine, template);
        c.catch(() => this.#channels.delete(leaseId));
        this.#channels.set(leaseId, c);
      }
      return c;
    };
    const console = () => {
      let c = this.#consoles.get(leaseId);
      if (!c) {
        if (!provider?.console) return Promise.reject(new VmhubError('CAPABILITY_UNAVAILABLE', `provider "${template.provider}" offers no console for template ${template.id}`));
        c = provider.console(machine);
        c.catch(() => this.#consoles.delete(leaseId));
        this.#consoles.set(leaseId, c);
      }
      return c;
    };
    const missing = adapter ? undefined : this.#registry.missing(template);
    return {
      lease_id: lease.id,
      expires_at: new Date(lease.expires_at).toISOString(),
      template,
      adapter,
      ...(missing ? { adapterProblem: missing } : {}),
      context: { lease_id: lease.id, machine, template, channel, console, signal },
    };
  }

  /** Close the lease's pooled connections and let its adapter drop cached state. */
  async release(leaseId: string): Promise<void> {
    const ch = this.#channels.get(leaseId);
    const co = this.#consoles.get(leaseId);
    this.#channels.delete(leaseId);
    this.#consoles.delete(leaseId);
    await Promise.allSettled([ch?.then((c) => c.close()), co?.then((c) => c.close()), ...this.#registry.allAdapters().map((a) => a.release?.(leaseId))]);
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.#channels.keys(), ...this.#consoles.keys()].map((id) => this.release(id)));
  }
}
