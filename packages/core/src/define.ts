/**
 * defineAdapter / defineProvider: the only way a plugin enters vmhub. They do real work:
 * - refuse a plugin built for another contract version;
 * - check every declared capability is implemented and nothing implemented is undeclared;
 * - validate options against the plugin's schema (filling defaults);
 * - wrap every method so anything thrown becomes a VmhubError tagged with the plugin id.
 * Factories they return do no I/O: connections open lazily, per lease.
 */
import type { TSchema } from '@sinclair/typebox';
import type { Adapter, AdapterContext, AdapterMethods, VerbSpec } from './adapter.ts';
import { CAPABILITIES, CAPABILITY_METHOD, isCapability, type Capability } from './capabilities.ts';
import { asVmhubError, VmhubError } from './errors.ts';
import type { Provider, ProviderContext, ProviderMethods } from './provider.ts';
import type { TemplateConfig } from './template.ts';
import { assertValid } from './validate.ts';

/** Bumped on any breaking change to the Adapter/Provider/GuestChannel contract. */
export const CONTRACT_VERSION = 1;

const ID = /^[a-z][a-z0-9-]{0,39}$/;

export interface AdapterSpec<O> {
  /** Short id used in templates (`adapter: "x11"`). Lowercase, digits, dashes. */
  id: string;
  /** The package version (shown in vm_health). */
  version: string;
  /** The CONTRACT_VERSION the plugin was written against. */
  contractVersion: number;
  capabilities: readonly Capability[];
  /** Options schema; validated with defaults applied before `create`. */
  options?: TSchema;
  /** Verbs for vm_dispatch. Declaring any requires the `dispatch` capability. */
  verbs?: Record<string, VerbSpec>;
  create(options: O): AdapterMethods;
}

export interface AdapterPlugin<O = unknown> {
  readonly kind: 'adapter';
  readonly id: string;
  readonly version: string;
  readonly contractVersion: number;
  readonly capabilities: readonly Capability[];
  readonly verbs: readonly { verb: string; description: string }[];
  create(options?: Partial<O>): Adapter;
}

export interface ProviderSpec<O> {
  id: string;
  version: string;
  contractVersion: number;
  options?: TSchema;
  /** Templates this provider offers out of the box (operators may override by id). */
  templates?: TemplateConfig[];
  create(options: O, context: ProviderContext): ProviderMethods;
}

export interface ProviderPlugin<O = unknown> {
  readonly kind: 'provider';
  readonly id: string;
  readonly version: string;
  readonly contractVersion: number;
  readonly templates: readonly TemplateConfig[];
  create(options: Partial<O> | undefined, context: ProviderContext): Provider;
}

export type VmhubPlugin = AdapterPlugin<any> | ProviderPlugin<any>;

function checkHeader(kind: string, spec: { id: string; version: string; contractVersion: number }): void {
  if (!ID.test(spec.id)) throw new VmhubError('INVALID_REQUEST', `[vmhub] ${kind} id "${spec.id}" must match ${ID}`);
  if (spec.contractVersion !== CONTRACT_VERSION) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${spec.id}] built for contract version ${spec.contractVersion}, this vmhub speaks ${CONTRACT_VERSION}: install a matching version of the plugin`, { source: spec.id, details: { contractVersion: spec.contractVersion, expected: CONTRACT_VERSION } });
  }
}

/** Validate a plugin's options; a failure names the config key to fix, not "the arguments". */
function validOptions<O>(schema: TSchema | undefined, raw: unknown, source: string, configKey: string): O {
  if (!schema) return (raw ?? {}) as O;
  try {
    return assertValid<O>(schema, structuredClone(raw ?? {}), `[vmhub] [${source}] options`, source);
  } catch (err) {
    if (!VmhubError.is(err)) throw err;
    throw new VmhubError('INVALID_REQUEST', err.message, { source, hint: `Fix ${configKey} in the vmhub config file as the message says; the plugin's README lists its options.` });
  }
}

function wrap<F extends (...args: any[]) => Promise<any>>(fn: F, self: object, source: string): F {
  return (async (...args: unknown[]) => {
    try {
      return await fn.apply(self, args);
    } catch (err) {
      throw asVmhubError(err, source);
    }
  }) as F;
}

export function defineAdapter<O = Record<string, never>>(spec: AdapterSpec<O>): AdapterPlugin<O> {
  checkHeader('adapter', spec);
  const source = `adapter-${spec.id}`;
  for (const cap of spec.capabilities) {
    if (!isCapability(cap)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] declares unknown capability "${cap}"; known: ${CAPABILITIES.join(', ')}`, { source });
  }
  const verbs = spec.verbs ?? {};
  const verbList = Object.entries(verbs).map(([verb, v]) => ({ verb, description: v.description }));
  const declared = new Set<Capability>(spec.capabilities);
  if (verbList.length > 0 && !declared.has('dispatch')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] declares verbs but not the "dispatch" capability`, { source });
  if (verbList.length === 0 && declared.has('dispatch')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] declares "dispatch" but no verbs`, { source });

  return Object.freeze({
    kind: 'adapter' as const,
    id: spec.id,
    version: spec.version,
    contractVersion: spec.contractVersion,
    capabilities: Object.freeze([...spec.capabilities]),
    verbs: Object.freeze(verbList),
    create(raw?: Partial<O>): Adapter {
      const options = validOptions<O>(spec.options, raw, source, `adapters.${spec.id} (or a template's adapter_options)`);
      const methods = spec.create(options);
      for (const cap of CAPABILITIES) {
        if (cap === 'dispatch') continue;
        const name = CAPABILITY_METHOD[cap];
        const has = typeof (methods as Record<string, unknown>)[name] === 'function';
        if (declared.has(cap) && !has) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] declares "${cap}" but does not implement ${name}()`, { source });
        if (!declared.has(cap) && has) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] implements ${name}() but does not declare "${cap}": declare it or remove the method`, { source });
      }
      const adapter: Record<string, unknown> = {
        kind: 'adapter', id: spec.id, version: spec.version, contractVersion: spec.contractVersion,
        capabilities: Object.freeze([...spec.capabilities]), verbs: Object.freeze(verbList),
      };
      for (const [name, fn] of Object.entries(methods)) {
        if (typeof fn === 'function') adapter[name] = wrap(fn as (...a: any[]) => Promise<any>, methods, source);
      }
      if (declared.has('dispatch')) {
        adapter.dispatch = wrap(async (ctx: AdapterContext, input: { verb: string; args: Record<string, unknown> }) => {
          const verb = Object.hasOwn(verbs, input.verb) ? verbs[input.verb] : undefined;
          if (!verb) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] unknown verb "${input.verb}"; verbs: ${verbList.map((v) => v.verb).join(', ')}`, { source });
          const args = assertValid<Record<string, unknown>>(verb.args, structuredClone(input.args ?? {}), `verb "${input.verb}" args`, source);
          return verb.run(ctx, args);
        }, methods, source);
      }
      return Object.freeze(adapter) as unknown as Adapter;
    },
  });
}

const REQUIRED_PROVIDER_METHODS = ['status', 'availability', 'create', 'ready', 'destroy', 'list'] as const;
const OPTIONAL_PROVIDER_METHODS = ['channel', 'console', 'close'] as const;

export function defineProvider<O = Record<string, never>>(spec: ProviderSpec<O>): ProviderPlugin<O> {
  checkHeader('provider', spec);
  const source = `provider-${spec.id}`;
  return Object.freeze({
    kind: 'provider' as const,
    id: spec.id,
    version: spec.version,
    contractVersion: spec.contractVersion,
    templates: Object.freeze([...(spec.templates ?? [])]),
    create(raw: Partial<O> | undefined, context: ProviderContext): Provider {
      const options = validOptions<O>(spec.options, raw, source, `providers.${spec.id}`);
      const methods = spec.create(options, context);
      const provider: Record<string, unknown> = { kind: 'provider', id: spec.id, version: spec.version, contractVersion: spec.contractVersion };
      for (const name of REQUIRED_PROVIDER_METHODS) {
        const fn = methods[name];
        if (typeof fn !== 'function') throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] does not implement required method ${name}()`, { source });
        provider[name] = wrap(fn as (...a: any[]) => Promise<any>, methods, source);
      }
      for (const name of OPTIONAL_PROVIDER_METHODS) {
        const fn = methods[name];
        if (typeof fn === 'function') provider[name] = wrap(fn as (...a: any[]) => Promise<any>, methods, source);
      }
      return Object.freeze(provider) as unknown as Provider;
    },
  });
}

/** Build the identity a machine carries: `vmhub-<instance>-<lease uuid>`. */
export function machineIdentity(instance: string, leaseId: string): string {
  return `${identityPrefix(instance)}${leaseId}`;
}
export function identityPrefix(instance: string): string {
  return `vmhub-${instance}-`;
}
