/** vm_list_templates, vm_capabilities and vm_health: what exists, what works, and why not. */
import { CAPABILITIES, MACHINE_CAPABILITIES, readPackageVersion, VmhubError, type Provider, type ProviderStatus, type TemplateConfig, type TemplateInfo, type ToolInput, type ToolOutput } from '@vmhub/core';
import { deadlineSignal } from '@vmhub/core/router';
import type { Store } from '@vmhub/store';
import type { LeaseManager } from './leases/manager.ts';
import type { Registry } from './registry.ts';
import type { LeaseSessions } from './sessions/lease-sessions.ts';
import type { Snapshots } from './snapshots/service.ts';
import { machineSupport } from './leases/machine-support.ts';
import { snapshotSupport } from './snapshots/support.ts';
import { workspaceSupport } from './workspaces/attach.ts';

/** @vmhub/server's version, from its package.json. */
export const VERSION = readPackageVersion(import.meta.url);

export class Catalog {
  readonly #registry: Registry;
  readonly #store: Store;
  readonly #leases: LeaseManager;
  readonly #sessions: LeaseSessions;
  readonly #snapshots: Snapshots;

  constructor(registry: Registry, store: Store, leases: LeaseManager, sessions: LeaseSessions, snapshots: Snapshots) {
    this.#registry = registry;
    this.#store = store;
    this.#leases = leases;
    this.#sessions = sessions;
    this.#snapshots = snapshots;
  }

  async templateInfo(t: TemplateConfig): Promise<TemplateInfo> {
    const adapter = this.#registry.adapterFor(t);
    const base = { id: t.id, provider: t.provider, adapter: t.adapter, os: t.os, capabilities: [...(adapter?.capabilities ?? [])], ...(t.description ? { description: t.description } : {}) };
    const missing = this.#registry.missing(t);
    if (missing) return { ...base, availability: 'unavailable', reason: tidyReason(missing) };
    const a = await this.#registry.providers.get(t.provider)!.availability(t).catch((err: Error) => ({ availability: 'unavailable' as const, reason: err.message }));
    if (a.availability === 'available' && adapter!.capabilities.length === 0) return { ...base, availability: 'stub', reason: `adapter "${t.adapter}" declares no capabilities: every VM tool answers CAPABILITY_UNAVAILABLE` };
    return { ...base, availability: a.availability, ...(a.reason ? { reason: tidyReason(a.reason) } : {}) };
  }

  async listTemplates(): Promise<ToolOutput<'vm_list_templates'>> {
    const templates = await Promise.all([...this.#registry.templates.values()].map((t) => this.templateInfo(t)));
    const rank = { available: 0, stub: 1, unavailable: 2 } as const;
    templates.sort((a, b) => rank[a.availability] - rank[b.availability] || a.id.localeCompare(b.id));
    return { templates };
  }

  /** `principal`: the caller's; another principal's lease is NOT_FOUND, as on every tool. */
  async capabilities(input: ToolInput<'vm_capabilities'>, principal: string): Promise<ToolOutput<'vm_capabilities'>> {
    if ((input.lease_id === undefined) === (input.template === undefined)) throw new VmhubError('INVALID_REQUEST', 'give exactly one of lease_id or template');
    let template: TemplateConfig;
    let lease: { lease_id: string; expires_at: string } | undefined;
    let probe: Partial<Record<string, string>> = {};
    if (input.lease_id) {
      const deadline = deadlineSignal(20_000, 'vm_capabilities: the probe did not answer within 20 s');
      try {
        const binding = await this.#sessions.bind(input.lease_id, deadline.signal, principal);
        template = binding.template;
        lease = { lease_id: binding.lease_id, expires_at: binding.expires_at };
        if (binding.session?.probe) probe = await binding.session.probe(binding.context).catch(() => ({}));
      } finally {
        deadline.clear();
      }
    } else {
      template = this.#leases.template(input.template!);
    }
    const adapter = this.#registry.adapterFor(template);
    const missing = this.#registry.missing(template);
    const declared = new Set(adapter?.capabilities ?? []);
    const unavailable: { capability: string; reason: string }[] = CAPABILITIES.filter((c) => !declared.has(c) || probe[c]).map((c) => ({
      capability: c,
      reason: tidyReason(missing ?? probe[c] ?? `adapter "${template.adapter}" does not provide it`),
    }));
    // Snapshots are the provider's (vm_snapshot, forks): memory true|false, or why not.
    const provider = this.#registry.providers.get(template.provider);
    const snapshot = snapshotSupport(provider, template);
    if (typeof snapshot === 'string') unavailable.push({ capability: 'snapshot', reason: tidyReason(snapshot) });
    // Workspaces (vm_lease_create {workspace}) are the provider's too: why not, where the template takes none.
    const workspace = workspaceSupport(provider, template);
    if (typeof workspace === 'string') unavailable.push({ capability: 'workspace', reason: tidyReason(workspace) });
    // Restart, stats and logs are the provider's too: listed beside the adapter's, or why not.
    const machine = MACHINE_CAPABILITIES.map((c) => [c, machineSupport(provider, template, c)] as const);
    for (const [c, support] of machine) if (support !== true) unavailable.push({ capability: c, reason: tidyReason(support) });
    return {
      template: template.id, adapter: template.adapter, provider: template.provider,
      capabilities: [...(adapter?.capabilities ?? []).filter((c) => !probe[c]), ...machine.filter(([, s]) => s === true).map(([c]) => c)],
      unavailable,
      verbs: [...(adapter?.verbs ?? [])],
      ...(typeof snapshot === 'string' ? {} : { snapshot: { memory: snapshot.memory } }),
      ...(lease ?? {}),
    };
  }

  async health(): Promise<ToolOutput<'vm_health'>> {
    // The store's kind and path (a PostgreSQL URL arrives masked); the reason is the store's own message (masked too).
    let storeReason: string | undefined;
    try { await this.#store.countLeases({ status: ['ready'] }); } catch (err) { storeReason = tidyReason((err as Error).message); }
    const storeOk = storeReason === undefined;
    const providers = await Promise.all([...this.#registry.providers.entries()].map(async ([id, p]) => {
      const s = await providerHealth(p);
      return { id, ok: s.ok, ...(s.not_configured ? { not_configured: true } : {}), ...(s.reason ? { reason: s.reason } : {}), ...(s.nodes ? { nodes: s.nodes.map((n) => ({ id: n.id, status: n.status })) } : {}) };
    }));
    // A plugin on the previous contract works through its shim, and says so: rebuild it before the next bump.
    const plugins = this.#registry.plugins.map((p) => ({ id: p.id, kind: p.kind, package: p.package, version: p.version, ok: p.ok, ...(p.reason ? { reason: tidyReason(p.reason) } : {}), ...(p.old_contract !== undefined ? { old_contract: p.old_contract, note: `built for contract ${p.old_contract}; served through core's shim (docs/conformance.md, "Contract versions"): rebuild it against the current @vmhub/core` } : {}) }));
    // A provider nobody configured is not a problem of this server: only the ones in use count.
    const ok = storeOk && providers.every((p) => p.ok || p.not_configured) && plugins.every((p) => p.ok);
    // Disk the live snapshots use and the budget; left out when the store cannot say.
    const snapshots = storeOk ? await this.#snapshots.usage().catch(() => undefined) : undefined;
    return { status: ok ? 'ok' : 'degraded', version: VERSION, store: { ok: storeOk, kind: this.#store.kind, path: this.#store.path, ...(storeReason === undefined ? {} : { reason: storeReason }) }, plugins, providers, sessions: this.#sessions.counts(), ...(snapshots ? { snapshots } : {}) };
  }
}

/** A provider's status() as health reports it: never throws; reasons tidied; "not configured" recognised. */
export async function providerHealth(provider: Provider): Promise<ProviderStatus & { not_configured?: true }> {
  const s = await provider.status().catch((err: Error): ProviderStatus => ({ ok: false, reason: err.message }));
  const reason = s.reason === undefined ? undefined : tidyReason(s.reason);
  return { ...s, ...(reason === undefined ? {} : { reason }), ...(!s.ok && notConfigured(s) ? { not_configured: true as const } : {}) };
}

/**
 * Did the provider say that nobody configured it (as opposed to: it is configured and broken)?
 * `ProviderStatus.configured === false` says so; older plugins that only say it in words (or in
 * `details.configured`) are recognised too.
 */
export function notConfigured(status: ProviderStatus): boolean {
  if (status.configured === false || status.details?.configured === false) return true;
  return /\bnot configured\b|node "default" has no API address/i.test(status.reason ?? '');
}

const PREFIX = /\[vmhub\](?: \[[^\]\s]+\])? ?/g;

/**
 * One `[vmhub] [component]` prefix at most, and only at the start: plugins prefix their messages
 * and core's wrappers add theirs, which made `[vmhub] [provider-proxmox] [vmhub] [provider-proxmox] …`,
 * or a prefix in the middle of a reason another component composed.
 */
export function tidyReason(reason: string): string {
  const lead = /^\[vmhub\](?: \[[^\]\s]+\])? /.exec(reason)?.[0] ?? '';
  return lead + reason.slice(lead.length).replace(PREFIX, '');
}
