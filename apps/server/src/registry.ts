/**
 * The plugin registry of one server process: discovered packages, instantiated adapters and
 * providers, and the merged template list (plugin defaults overridden by config). Broken
 * plugins are kept with their reason so vm_health and vm_list_templates can say what is wrong.
 */
import { identityPrefix, isShimmed, type Adapter, type AdapterPlugin, type Provider, type ProviderPlugin, type TemplateConfig } from '@vmhub/core';
import { discoverPlugins, type DiscoveredPackage, type VmhubConfig } from '@vmhub/core/config';
import { log } from './log.ts';

export interface PluginState {
  id: string;
  kind: 'adapter' | 'provider' | 'package';
  package: string;
  version: string;
  ok: boolean;
  reason?: string;
  /** Set when the plugin was built for the previous contract and runs through its shim (contract-window.ts). */
  old_contract?: number;
}

/** Why VMHUB_STANDIN_TEMPLATES=1 lists no stand-in: they are test peers that are never published. */
export const STANDINS_ABSENT = 'stand-in templates are asked for (VMHUB_STANDIN_TEMPLATES=1 or config standin_templates: true), but no installed provider offers one: the built-in stand-ins (android-, hyprland-, macos-, windows-standin) are test peers kept in @vmhub/standin-goldens, a private workspace package that only a checkout of the vmhub repository has (it is never published); run vmhub-server from a checkout (pnpm install && pnpm run build) to use them, or turn standin_templates off';

export class Registry {
  /** One instance per adapter plugin, made with the server's `adapters.<id>` options. */
  readonly adapters = new Map<string, Adapter>();
  readonly providers = new Map<string, Provider>();
  readonly templates = new Map<string, TemplateConfig>();
  readonly plugins: PluginState[] = [];
  /** Stand-in templates left out because config `standin_templates` is off (named in NOT_FOUND). */
  readonly hiddenStandins = new Set<string>();
  /**
   * Why config `standin_templates` is on but no template is a stand-in: the built-in ones come
   * from @vmhub/standin-goldens, a private workspace package only a vmhub checkout has. Said by
   * NOT_FOUND for `<os>-standin`, by doctor and in the log; undefined when stand-ins are offered.
   */
  standinsAbsent: string | undefined;
  /** Templates with `adapter_options` get their own adapter instance (server options + theirs). */
  readonly #templateAdapters = new Map<string, Adapter>();
  /** Why a template's own adapter instance could not be made (its adapter_options are invalid). */
  readonly #templateProblems = new Map<string, string>();

  /** `stateDir`: the instance's state directory, given to every provider (ProviderContext.stateDir). */
  static async load(config: VmhubConfig, from: string, stateDir?: string): Promise<Registry> {
    const registry = new Registry();
    const packages = await discoverPlugins({ from, names: config.plugins });
    registry.#install(packages, config, stateDir);
    return registry;
  }

  #install(packages: DiscoveredPackage[], config: VmhubConfig, stateDir: string | undefined): void {
    const defaults: TemplateConfig[] = [];
    const adapterPlugins = new Map<string, AdapterPlugin>();
    const providerPlugins = new Map<string, ProviderPlugin>();
    for (const pkg of packages) {
      const state = (id: string, kind: PluginState['kind'], reason?: string): PluginState =>
        ({ id, kind, package: pkg.package, version: pkg.version, ok: reason === undefined, ...(reason === undefined ? {} : { reason }) });
      for (const plugin of pkg.plugins) {
        if ((plugin.kind === 'adapter' ? this.adapters : this.providers).has(plugin.id)) {
          this.#record(state(plugin.id, plugin.kind, `duplicate ${plugin.kind} id "${plugin.id}": the first one loaded wins`));
          continue;
        }
        try {
          if (plugin.kind === 'adapter') {
            this.adapters.set(plugin.id, (plugin as AdapterPlugin).create(config.adapters[plugin.id] ?? {}));
            adapterPlugins.set(plugin.id, plugin as AdapterPlugin);
          } else {
            const p = plugin as ProviderPlugin;
            // Its templates are listed even if it cannot start: they then say why (unavailable + reason).
            defaults.push(...p.templates);
            providerPlugins.set(p.id, p);
            this.providers.set(p.id, p.create(config.providers[p.id] ?? {}, { identityPrefix: identityPrefix(config.instance), log: (level, msg, data) => log(level, msg, { provider: p.id, ...data }), ...(stateDir ? { stateDir } : {}) }));
          }
          this.#record({ ...state(plugin.id, plugin.kind), ...(isShimmed(plugin) ? { old_contract: plugin.contractVersion } : {}) });
        } catch (err) {
          this.#record(state(plugin.id, plugin.kind, (err as Error).message));
        }
      }
      if (pkg.error) this.#record(state(pkg.package, 'package', pkg.error));
    }
    for (const t of defaults) this.templates.set(t.id, t);
    for (const t of config.templates) this.templates.set(t.id, t);
    for (const id of config.disabled_templates) this.templates.delete(id);
    if (!config.standin_templates) {
      for (const t of [...this.templates.values()]) if (t.standin) { this.templates.delete(t.id); this.hiddenStandins.add(t.id); }
    } else if (![...this.templates.values()].some((t) => t.standin)) {
      this.standinsAbsent = STANDINS_ABSENT;
      log('warn', 'stand-in templates asked for, none installed', { reason: STANDINS_ABSENT });
    }
    for (const t of this.templates.values()) {
      // provider_options are checked against the provider's schema now, not at the first create.
      const providerPlugin = providerPlugins.get(t.provider);
      try {
        providerPlugin?.checkTemplate(t);
      } catch (err) {
        const reason = `template "${t.id}": provider_options are invalid for provider "${t.provider}": ${(err as Error).message}`;
        this.#templateProblems.set(t.id, reason);
        log('warn', 'template unusable', { template: t.id, reason });
        continue;
      }
      const plugin = adapterPlugins.get(t.adapter);
      if (!plugin || !t.adapter_options || Object.keys(t.adapter_options).length === 0) continue;
      try {
        this.#templateAdapters.set(t.id, plugin.create({ ...(config.adapters[t.adapter] ?? {}), ...t.adapter_options }));
      } catch (err) {
        const reason = `template "${t.id}": adapter_options are invalid for adapter "${t.adapter}": ${(err as Error).message}`;
        this.#templateProblems.set(t.id, reason);
        log('warn', 'template unusable', { template: t.id, reason });
      }
    }
  }

  /**
   * The adapter instance serving this template's leases: its own when the template sets
   * `adapter_options` (shallow-merged over the server's `adapters.<id>`), else the shared one.
   */
  adapterFor(template: TemplateConfig): Adapter | undefined {
    if (this.#templateProblems.has(template.id)) return undefined;
    return this.#templateAdapters.get(template.id) ?? this.adapters.get(template.adapter);
  }

  /** Every adapter instance (shared and per-template), e.g. to drop a released lease's state. */
  allAdapters(): Adapter[] {
    return [...this.adapters.values(), ...this.#templateAdapters.values()];
  }

  #record(state: PluginState): void {
    this.plugins.push(state);
    if (!state.ok) log('warn', 'plugin unusable', { package: state.package, id: state.id, reason: state.reason });
  }

  /** Why this template's adapter or provider is unusable, or undefined when both are ready to serve it. */
  missing(template: TemplateConfig): string | undefined {
    if (!this.providers.has(template.provider)) return this.#why('provider', template.provider);
    if (!this.adapters.has(template.adapter)) return this.#why('adapter', template.adapter);
    return this.#templateProblems.get(template.id);
  }

  /**
   * The recorded failure of the plugin with this id — or of the package conventionally named for
   * it (`@vmhub/adapter-x11` for adapter "x11"), which failed before it could say its ids.
   */
  #why(kind: 'adapter' | 'provider', id: string): string {
    const own = this.plugins.find((p) => p.kind === kind && p.id === id && !p.ok);
    const pkg = this.plugins.find((p) => p.kind === 'package' && !p.ok && (p.package === `@vmhub/${kind}-${id}` || p.package === `vmhub-${kind}-${id}`));
    const problem = own ?? pkg;
    if (problem) return `${kind} "${id}" is unusable: ${problem.reason}`;
    // No package of ours is named for every id (third parties name theirs vmhub-<kind>-<id>, or anything).
    return `${kind} "${id}" is not installed: no loaded plugin provides it — install the package that does beside @vmhub/server (npx -y -p @vmhub/server -p <package> vmhub-server), or name its directory in VMHUB_PLUGINS (built-in ones are @vmhub/${kind}-<id>; conventional third-party names are vmhub-${kind}-<id>)`;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.providers.values()].map((p) => p.close?.()));
  }
}
