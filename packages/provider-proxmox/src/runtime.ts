/**
 * The provider's per-process state: resolved config and API clients (made lazily, on first use)
 * and per-lease secrets (dropped at destroy). No channel and no per-machine fact is kept here:
 * each channel() opens a new connection that core owns and closes, and a guest's address is
 * asked for again each time (it may change; the question costs one API call per session).
 */
import type { MachineRef, ProviderContext } from '@vmhub/core';
import { VmhubError } from '@vmhub/core';
import { resolveProxmoxConfig, type Env, type ResolvedProxmoxConfig } from './config.ts';
import type { ProxmoxOptions } from './options.ts';
import { PveClient } from './pve-client.ts';
import { SOURCE } from './pve-errors.ts';
import { LeaseSecrets } from '@vmhub/core';
import type { StepSettings, VmAt } from './vm-steps.ts';

/** The MachineRef of a VM: `locate` reads it back. */
export function machineRef(client: PveClient, node: string, vmid: number, identity: string, extra: Record<string, unknown> = {}): MachineRef {
  return { identity, external_id: String(vmid), node, details: { endpoint: client.endpoint.id, node, vmid, ...extra } };
}

export class Runtime {
  readonly options: ProxmoxOptions;
  readonly context: ProviderContext;
  readonly env: Env;
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
    // The option (or VMHUB_STATE_DIR) first, else the instance's state directory the server and reaper give.
    const dir = this.config.stateDir ?? this.context.stateDir;
    this.#secrets ??= LeaseSecrets.forProvider('provider-proxmox', dir || undefined);
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

  /** Where a MachineRef lives: its endpoint client, node and VMID. */
  locate(machine: MachineRef): { client: PveClient | undefined; node: string | undefined; vmid: number } {
    const vmid = Number(machine.external_id);
    if (!Number.isInteger(vmid) || vmid < 100) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] "${machine.external_id}" is not a Proxmox VMID`, { source: SOURCE });
    const d = machine.details ?? {};
    const client = this.client(typeof d.endpoint === 'string' ? d.endpoint : undefined) ?? (this.clients.length === 1 ? this.clients[0] : undefined);
    const node = machine.node ?? (typeof d.node === 'string' ? d.node : undefined);
    return { client, node, vmid };
  }

  /** Where a MachineRef lives, or NOT_FOUND when its endpoint or node is unknown. */
  vm(machine: MachineRef): VmAt {
    const { client, node, vmid } = this.locate(machine);
    if (!client || !node) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] machine ${machine.identity} names no known endpoint/node`, { source: SOURCE });
    return { client, node, vmid };
  }

  /** Total API calls by endpoint template, over all endpoints (for tests and vm_health). */
  callCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const c of this.#clients ?? []) for (const [k, v] of c.calls) out[k] = (out[k] ?? 0) + v;
    return out;
  }

  async close(): Promise<void> {
    for (const c of this.#clients ?? []) c.close();
  }
}
