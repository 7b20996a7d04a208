/**
 * The plugin registry of one server process: discovered packages, instantiated adapters and
 * providers, and the merged template list (plugin defaults overridden by config). Broken
 * plugins are kept with their reason so vm_health and vm_list_templates can say what is wrong.
 */
import { discoverPlugins, identityPrefix, type Adapter, type AdapterPlugin, type DiscoveredPackage, type Provider, type ProviderPlugin, type TemplateConfig, type VmhubConfig } from '@vmhub/core';
import { log } from './log.ts';

export interface PluginState {
  id: string;
  kind: 'adapter' | 'provider' | 'package';
  package: string;
  version: string;
  ok: boolean;
  reason?: string;
}

export class Registry {
  readonly adapters = new Map<string, Adapter>();
  readonly providers = new Map<string, Provider>();
  readonly templates = new Map<string, TemplateConfig>();
  readonly plugins: PluginState[] = [];
  /** Why an adapter/provider id is missing (failed to load or instantiate). */
  readonly problems = new Map<string, string>();

  static async load(config: VmhubConfig, from: string): Promise<Registry> {
    const registry = new Registry();
    const packages = await discoverPlugins({ from, names: config.plugins });
    registry.#install(packages, config);
    return registry;
  }

  #install(packages: DiscoveredPackage[], config: VmhubConfig): void {
    const defaults: TemplateConfig[] = [];
    for (const pkg of packages) {
      if (pkg.error && pkg.plugins.length === 0) {
        this.plugins.push({ id: pkg.package, kind: 'package', package: pkg.package, version: pkg.version, ok: false, reason: pkg.error });
        log('warn', 'plugin failed to load', { package: pkg.package, reason: pkg.error });
        continue;
      }
      for (const plugin of pkg.plugins) {
        const key = `${plugin.kind}:${plugin.id}`;
        if ((plugin.kind === 'adapter' ? this.adapters : this.providers).has(plugin.id)) {
          this.plugins.push({ id: plugin.id, kind: plugin.kind, package: pkg.package, version: pkg.version, ok: false, reason: `duplicate ${plugin.kind} id "${plugin.id}": the first one loaded wins` });
          continue;
        }
        try {
          if (plugin.kind === 'adapter') {
            this.adapters.set(plugin.id, (plugin as AdapterPlugin).create(config.adapters[plugin.id] ?? {}));
          } else {
            const p = plugin as ProviderPlugin;
            this.providers.set(p.id, p.create(config.providers[p.id] ?? {}, { identityPrefix: identityPrefix(config.instance), log: (level, msg, data) => log(level, msg, { provider: p.id, ...data }) }));
            defaults.push(...p.templates);
          }
          this.plugins.push({ id: plugin.id, kind: plugin.kind, package: pkg.package, version: pkg.version, ok: true });
        } catch (err) {
          const reason = (err as Error).message;
          this.problems.set(key, reason);
          this.plugins.push({ id: plugin.id, kind: plugin.kind, package: pkg.package, version: pkg.version, ok: false, reason });
          log('warn', 'plugin failed to start', { package: pkg.package, id: plugin.id, reason });
        }
      }
      if (pkg.error) this.plugins.push({ id: pkg.package, kind: 'package', package: pkg.package, version: pkg.version, ok: false, reason: pkg.error });
    }
    for (const t of defaults) this.templates.set(t.id, t);
    for (const t of config.templates) this.templates.set(t.id, t);
    for (const id of config.disabled_templates) this.templates.delete(id);
  }

  /** Why this template's adapter or provider is unusable, or undefined when both are loaded. */
  missing(template: TemplateConfig): string | undefined {
    if (!this.providers.has(template.provider)) {
      return this.problems.get(`provider:${template.provider}`) ?? `provider "${template.provider}" is not installed: add @vmhub/provider-${template.provider} (or the package providing it) next to @vmhub/server`;
    }
    if (!this.adapters.has(template.adapter)) {
      return this.problems.get(`adapter:${template.adapter}`) ?? `adapter "${template.adapter}" is not installed: add @vmhub/adapter-${template.adapter} (or the package providing it) next to @vmhub/server`;
    }
    return undefined;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.providers.values()].map((p) => p.close?.()));
  }
}
