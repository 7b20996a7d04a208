/**
 * The provider's per-process state: resolved config and API clients (made lazily, on first use),
 * per-lease secrets, and per-machine runtime facts (address, pooled channel).
 */
import type { GuestChannel, MachineRef, ProviderContext } from '@vmhub/core';
import { VmhubError } from '@vmhub/core';
import { resolveProxmoxConfig, type Env, type ResolvedProxmoxConfig } from './config.ts';
import type { StepSettings } from './lifecycle.ts';
import type { ProxmoxOptions } from './options.ts';
import { PveClient } from './pve-client.ts';
import { SOURCE } from './pve-errors.ts';
import { LeaseSecrets } from './secrets.ts';

export interface MachineState {
  address?: { host: string; port: number };
  channel?: GuestChannel & { readonly closed: boolean };
}

export class Runtime {
  readonly options: ProxmoxOptions;
  readonly context: ProviderContext;
  readonly env: Env;
  readonly machines = new Map<string, MachineState>();
  #config: ResolvedProxmoxConfig | undefined;
  #clients: PveClient[] | undefined;
  #secrets: LeaseSecrets | undefined;

  constructor(options: ProxmoxOptions, context: ProviderContext, env: Env) {
    this.options = options;
    this.context = context;
    this.env = env;
  }

  get config(): ResolvedProxmoxConfig {
    this.#config ??= resolveProxmoxConfig(this.env, this.options);
    return this.#config;
  }

  get clients(): PveClient[] {
    this.#clients ??= this.config.endpoints.map((ep) => new PveClient(ep, {
      timeoutMs: this.options.request_timeout_ms, retries: this.options.retries, retryBaseMs: this.options.retry_base_ms,
    }));
    return this.#clients;
  }

  get secrets(): LeaseSecrets {
    this.#secrets ??= new LeaseSecrets(this.config.stateDir);
    return this.#secrets;
  }

  client(endpointId: string | undefined): PveClient | undefined {
    return endpointId === undefined ? undefined : this.clients.find((c) => c.endpoint.id === endpointId);
  }

  steps(signal?: AbortSignal): StepSettings {
    return {
      lockRetries: this.options.lock_retries,
      retryBaseMs: this.options.retry_base_ms,
      task: { pollMs: this.options.task_poll_ms, timeoutMs: this.options.task_timeout_ms, signal },
    };
  }

  state(identity: string): MachineState {
    let s = this.machines.get(identity);
    if (!s) this.machines.set(identity, (s = {}));
    return s;
  }

  /** Where a MachineRef lives: its endpoint client, node and VMID. */
  locate(machine: MachineRef): { client: PveClient | undefined; node: string | undefined; vmid: number } {
    const vmid = Number(machine.external_id);
    if (!Number.isInteger(vmid) || vmid < 100) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] "${machine.external_id}" is not a Proxmox VMID`, { source: SOURCE });
    const d = machine.details ?? {};
    const client = this.client(typeof d.endpoint === 'string' ? d.endpoint : undefined) ?? (this.clients.length === 1 ? this.clients[0] : undefined);
    const node = machine.node ?? (typeof d.node === 'string' ? d.node : undefined);
    return { client, node, vmid };
  }

  /** Total API calls by endpoint template, over all endpoints (for tests and vm_health). */
  callCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const c of this.#clients ?? []) for (const [k, v] of c.calls) out[k] = (out[k] ?? 0) + v;
    return out;
  }

  async close(): Promise<void> {
    for (const s of this.machines.values()) await s.channel?.close().catch(() => undefined);
    this.machines.clear();
    for (const c of this.#clients ?? []) c.close();
  }
}
