/** vm_list_templates, vm_capabilities and vm_health: what exists, what works, and why not. */
import { CAPABILITIES, readPackageVersion, VmhubError, type TemplateConfig, type TemplateInfo, type ToolInput, type ToolOutput } from '@vmhub/core';
import type { Store } from '@vmhub/store';
import type { LeaseManager } from './leases/manager.ts';
import type { Registry } from './registry.ts';
import type { LeaseSessions } from './sessions/lease-sessions.ts';

/** @vmhub/server's version, from its package.json. */
export const VERSION = readPackageVersion(import.meta.url);

export class Catalog {
  readonly #registry: Registry;
  readonly #store: Store;
  readonly #leases: LeaseManager;
  readonly #sessions: LeaseSessions;

  constructor(registry: Registry, store: Store, leases: LeaseManager, sessions: LeaseSessions) {
    this.#registry = registry;
    this.#store = store;
    this.#leases = leases;
    this.#sessions = sessions;
  }

  async templateInfo(t: TemplateConfig): Promise<TemplateInfo> {
    const adapter = this.#registry.adapterFor(t);
    const base = { id: t.id, provider: t.provider, adapter: t.adapter, os: t.os, capabilities: [...(adapter?.capabilities ?? [])], ...(t.description ? { description: t.description } : {}) };
    const missing = this.#registry.missing(t);
    if (missing) return { ...base, availability: 'unavailable', reason: missing };
    const a = await this.#registry.providers.get(t.provider)!.availability(t).catch((err: Error) => ({ availability: 'unavailable' as const, reason: err.message }));
    if (a.availability === 'available' && adapter!.capabilities.length === 0) return { ...base, availability: 'stub', reason: `adapter "${t.adapter}" declares no capabilities: every VM tool answers CAPABILITY_UNAVAILABLE` };
    return { ...base, availability: a.availability, ...(a.reason ? { reason: a.reason } : {}) };
  }

  async listTemplates(): Promise<ToolOutput<'vm_list_templates'>> {
    const templates = await Promise.all([...this.#registry.templates.values()].map((t) => this.templateInfo(t)));
    const rank = { available: 0, stub: 1, unavailable: 2 } as const;
    templates.sort((a, b) => rank[a.availability] - rank[b.availability] || a.id.localeCompare(b.id));
    return { templates };
  }

  async capabilities(input: ToolInput<'vm_capabilities'>): Promise<ToolOutput<'vm_capabilities'>> {
    if ((input.lease_id === undefined) === (input.template === undefined)) throw new VmhubError('INVALID_REQUEST', 'give exactly one of lease_id or template');
    let template: TemplateConfig;
    let lease: { lease_id: string; expires_at: string } | undefined;
    let probe: Partial<Record<string, string>> = {};
    if (input.lease_id) {
      const binding = await this.#sessions.bind(input.lease_id, AbortSignal.timeout(20_000));
      template = binding.template;
      lease = { lease_id: binding.lease_id, expires_at: binding.expires_at };
      if (binding.session?.probe) probe = await binding.session.probe(binding.context).catch(() => ({}));
    } else {
      template = this.#leases.template(input.template!);
    }
    const adapter = this.#registry.adapterFor(template);
    const missing = this.#registry.missing(template);
    const declared = new Set(adapter?.capabilities ?? []);
    const unavailable = CAPABILITIES.filter((c) => !declared.has(c) || probe[c]).map((c) => ({
      capability: c,
      reason: missing ?? probe[c] ?? `adapter "${template.adapter}" does not provide it`,
    }));
    return {
      template: template.id, adapter: template.adapter, provider: template.provider,
      capabilities: (adapter?.capabilities ?? []).filter((c) => !probe[c]),
      unavailable,
      verbs: [...(adapter?.verbs ?? [])],
      ...(lease ?? {}),
    };
  }

  async health(): Promise<ToolOutput<'vm_health'>> {
    let storeOk = true;
    try { await this.#store.countLeases({ status: ['ready'] }); } catch { storeOk = false; }
    const providers = await Promise.all([...this.#registry.providers.entries()].map(async ([id, p]) => {
      const s = await p.status().catch((err: Error) => ({ ok: false, reason: err.message, nodes: undefined }));
      return { id, ok: s.ok, ...(s.reason ? { reason: s.reason } : {}), ...(s.nodes ? { nodes: s.nodes.map((n) => ({ id: n.id, status: n.status })) } : {}) };
    }));
    const plugins = this.#registry.plugins.map((p) => ({ id: p.id, kind: p.kind, package: p.package, version: p.version, ok: p.ok, ...(p.reason ? { reason: p.reason } : {}) }));
    const ok = storeOk && providers.every((p) => p.ok) && plugins.every((p) => p.ok);
    return { status: ok ? 'ok' : 'degraded', version: VERSION, store: { ok: storeOk, path: this.#store.path }, plugins, providers, sessions: this.#sessions.counts() };
  }
}
