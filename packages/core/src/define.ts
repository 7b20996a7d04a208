/**
 * defineAdapter / defineProvider: the only way a plugin enters vmhub. They do real work:
 * - refuse a plugin built for another contract version;
 * - check every declared capability is implemented and nothing implemented is undeclared;
 * - validate options against the plugin's schema (filling defaults);
 * - wrap every method so anything thrown becomes a VmhubError tagged with the plugin id.
 * Factories they return do no I/O: connections open lazily, per lease.
 */
import type { TSchema } from '@sinclair/typebox';
import type { Adapter, AdapterContext, AdapterDeclaration, AdapterSession, LeaseContext, OpenSession, VerbSpec } from './adapter.ts';
import { CAPABILITIES, CAPABILITY_METHOD, isCapability, type Capability } from './capabilities.ts';
import { asVmhubError, VmhubError } from './errors.ts';
import type { GoldenImages, Provider, ProviderContext, ProviderMethods } from './provider.ts';
import type { TemplateConfig } from './template.ts';
import { assertValid } from './validate.ts';

/**
 * The contract this @vmhub/core speaks. Bumped on any breaking change to the Adapter, Provider
 * or GuestChannel contract. A plugin writes the number it was built for as a literal
 * (`contractVersion: 2`), never this constant: the check is between the two.
 * 1: methods on the adapter instance. 2: lease sessions (`open()`), goldens on the provider.
 */
export const CONTRACT_VERSION = 2;

const ID = /^[a-z][a-z0-9-]{0,39}$/;

/** What `create(options)` returns: opens one session per lease. Does no I/O itself. */
export interface AdapterFactory<S extends AdapterSession = AdapterSession> {
  open(lease: LeaseContext): S | Promise<S>;
}

export interface AdapterSpec<O, S extends AdapterSession = AdapterSession> {
  /** Short id used in templates (`adapter: "x11"`). Lowercase, digits, dashes. */
  id: string;
  /** The package version (shown in vm_health): read it from package.json (readPackageVersion). */
  version: string;
  /** The contract version the plugin was written against, as a literal (e.g. `2`). */
  contractVersion: number;
  capabilities: readonly Capability[];
  /** Options schema; validated with defaults applied before `create`. */
  options?: TSchema;
  /** Verbs for vm_dispatch; each runs on the lease's session. Declaring any requires `dispatch`. */
  verbs?: Record<string, VerbSpec<S>>;
  create(options: O): AdapterFactory<S>;
}

export interface AdapterPlugin<O = unknown> extends AdapterDeclaration {
  create(options?: Partial<O>): Adapter;
}

export interface ProviderSpec<O> {
  id: string;
  /** The package version: read it from package.json (readPackageVersion). */
  version: string;
  /** The contract version the plugin was written against, as a literal. */
  contractVersion: number;
  options?: TSchema;
  /** Schema of a template's `provider_options`; checked when the server loads its templates. */
  templateOptions?: TSchema;
  /** Templates this provider offers out of the box (operators may override by id). */
  templates?: TemplateConfig[];
  /** Golden images this provider builds (for `vmhub-server golden …`); no I/O until called. */
  goldens?(options: O): GoldenImages;
  create(options: O, context: ProviderContext): ProviderMethods;
}

export interface ProviderPlugin<O = unknown> {
  readonly kind: 'provider';
  readonly id: string;
  readonly version: string;
  readonly contractVersion: number;
  readonly templates: readonly TemplateConfig[];
  create(options: Partial<O> | undefined, context: ProviderContext): Provider;
  /** The provider's golden images with these options, or undefined when it builds none. */
  goldens(options?: Partial<O>): GoldenImages | undefined;
  /** Check a template's provider_options against the provider's schema; INVALID_REQUEST naming the key. */
  checkTemplate(template: TemplateConfig): void;
}

export type VmhubPlugin = AdapterPlugin<any> | ProviderPlugin<any>;

/** Refuse a plugin written for another contract than this core speaks. */
function checkContract(kind: string, spec: { id: string; contractVersion: number }): void {
  if (spec.contractVersion !== CONTRACT_VERSION) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${kind}-${spec.id}] built for contract version ${spec.contractVersion}, this vmhub speaks ${CONTRACT_VERSION}: install a version of the plugin built for contract ${CONTRACT_VERSION}`, { source: `${kind}-${spec.id}`, details: { contractVersion: spec.contractVersion, expected: CONTRACT_VERSION } });
  }
}

function checkHeader(kind: string, spec: { id: string; version: string; contractVersion: number }): void {
  if (!ID.test(spec.id)) throw new VmhubError('INVALID_REQUEST', `[vmhub] ${kind} id "${spec.id}" must match ${ID}`);
  if (typeof spec.version !== 'string' || spec.version.length === 0) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${kind}-${spec.id}] has no version: set version from package.json (readPackageVersion(import.meta.url))`);
  checkContract(kind, spec);
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

function wrap<F extends (...args: any[]) => Promise<any>>(fn: F, self: object, source: string, gate?: () => void): F {
  return (async (...args: unknown[]) => {
    try {
      gate?.();
      return await fn.apply(self, args);
    } catch (err) {
      throw asVmhubError(err, source);
    }
  }) as F;
}

/** Session methods core knows besides the capability methods. */
const SESSION_EXTRAS = ['screenSize', 'probe', 'restored', 'releaseHeld'] as const;

/**
 * What `vm_exec {shell}` runs when the session has no `shellArgv()` (AdapterSession.shellArgv):
 * POSIX sh, as every Linux, BSD and macOS has it.
 */
export function posixShellArgv(command: string): string[] {
  return ['/bin/sh', '-c', command];
}

/** A session's shellArgv(), synchronous, gated, its answer checked: an argv, or a typed error. */
function wrapShellArgv(fn: (command: string) => unknown, self: object, source: string, gate: () => void): (command: string) => string[] {
  return (command: string) => {
    let argv: unknown;
    try {
      gate();
      argv = fn.call(self, command);
    } catch (err) {
      throw asVmhubError(err, source);
    }
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string') || argv[0] === '') {
      throw new VmhubError('INTERNAL', `[vmhub] [${source}] shellArgv() returned ${JSON.stringify(argv)?.slice(0, 200)}, not an argv`, { source, hint: 'Return a non-empty array of strings from shellArgv(command), e.g. [\'/bin/sh\', \'-c\', command], synchronously.' });
    }
    return argv as string[];
  };
}

/** Declared = implemented, on the object `open()` returned. */
function checkSession(session: AdapterSession, declared: ReadonlySet<Capability>, source: string): void {
  if (!session || typeof session !== 'object') throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] open() returned ${session === null ? 'null' : typeof session}, not a session object`, { source, hint: 'Return an object with one method per declared capability from open().' });
  for (const cap of CAPABILITIES) {
    if (cap === 'dispatch') continue;
    const name = CAPABILITY_METHOD[cap];
    const has = typeof (session as Record<string, unknown>)[name] === 'function';
    if (declared.has(cap) && !has) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] declares "${cap}" but its session does not implement ${name}()`, { source, hint: `Add ${name}(ctx, input) to the object open() returns, or remove "${cap}" from capabilities.` });
    if (!declared.has(cap) && has) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] its session implements ${name}() but the adapter does not declare "${cap}": declare it or remove the method`, { source });
  }
  const shell = (session as Record<string, unknown>).shellArgv;
  if (shell !== undefined && typeof shell !== 'function') throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] its session's shellArgv is ${typeof shell}, not a function`, { source, hint: 'Make shellArgv(command) a method returning the argv of the machine\'s shell, or leave it out for /bin/sh -c.' });
  if (shell !== undefined && !declared.has('exec')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] its session implements shellArgv() but the adapter does not declare "exec": declare it or remove the method`, { source });
}

export function defineAdapter<O = Record<string, never>, S extends AdapterSession = AdapterSession>(spec: AdapterSpec<O, S>): AdapterPlugin<O> {
  checkHeader('adapter', spec);
  const source = `adapter-${spec.id}`;
  for (const cap of spec.capabilities) {
    if (!isCapability(cap)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] declares unknown capability "${cap}"; known: ${CAPABILITIES.join(', ')}`, { source });
  }
  const verbs = spec.verbs ?? {};
  const verbList = Object.freeze(Object.entries(verbs).map(([verb, v]) => ({ verb, description: v.description })));
  const capabilities = Object.freeze([...spec.capabilities]);
  const declared = new Set<Capability>(spec.capabilities);
  if (verbList.length > 0 && !declared.has('dispatch')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] declares verbs but not the "dispatch" capability`, { source });
  if (verbList.length === 0 && declared.has('dispatch')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] declares "dispatch" but no verbs`, { source });
  const header = { kind: 'adapter' as const, id: spec.id, version: spec.version, contractVersion: spec.contractVersion, capabilities, verbs: verbList };

  return Object.freeze({
    ...header,
    create(raw?: Partial<O>): Adapter {
      const options = validOptions<O>(spec.options, raw, source, `adapters.${spec.id} (or a template's adapter_options)`);
      const factory = spec.create(options);
      if (!factory || typeof factory.open !== 'function') throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] create() must return {open(lease)}: the session factory`, { source });
      return Object.freeze({
        ...header,
        async open(lease: LeaseContext): Promise<OpenSession> {
          let session: S;
          try {
            session = await factory.open(lease);
          } catch (err) {
            throw asVmhubError(err, source);
          }
          checkSession(session, declared, source);
          return wrapSession(session, lease.lease_id, declared, verbs, verbList, source);
        },
      });
    },
  });
}

function wrapSession<S extends AdapterSession>(session: S, leaseId: string, declared: ReadonlySet<Capability>, verbs: Record<string, VerbSpec<S>>, verbList: readonly { verb: string }[], source: string): OpenSession {
  let disposed = false;
  let disposing: Promise<void> | undefined;
  const gate = () => {
    if (disposed) throw new VmhubError('LEASE_EXPIRED', `[vmhub] [${source}] the session of lease ${leaseId} has ended`, { hint: 'The lease is over: create a new one (vm_lease_create).' });
  };
  const out: Record<string, unknown> = {
    lease_id: leaseId,
    get disposed() { return disposed; },
    dispose(): Promise<void> {
      disposed = true;
      disposing ??= (async () => {
        try { await session.dispose?.(); } catch { /* dispose must not throw; core closes the channel regardless */ }
      })();
      return disposing;
    },
  };
  const names = [...CAPABILITIES.filter((c) => c !== 'dispatch' && declared.has(c)).map((c) => CAPABILITY_METHOD[c]), ...SESSION_EXTRAS];
  for (const name of names) {
    const fn = (session as Record<string, unknown>)[name];
    if (typeof fn === 'function') out[name] = wrap(fn as (...a: any[]) => Promise<any>, session, source, gate);
  }
  if (typeof session.shellArgv === 'function') out.shellArgv = wrapShellArgv(session.shellArgv, session, source, gate);
  // Part of clone_repo (vm_clone_repo {push: true}), so only with it.
  if (declared.has('clone_repo') && typeof session.installGitCredential === 'function') out.installGitCredential = wrap(session.installGitCredential, session, source, gate);
  if (declared.has('dispatch')) {
    out.dispatch = wrap(async (ctx: AdapterContext, input: { verb: string; args: Record<string, unknown> }) => {
      const verb = Object.hasOwn(verbs, input.verb) ? verbs[input.verb] : undefined;
      if (!verb) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${source}] unknown verb "${input.verb}"; verbs: ${verbList.map((v) => v.verb).join(', ')}`, { source });
      const args = assertValid<Record<string, unknown>>(verb.args, structuredClone(input.args ?? {}), `verb "${input.verb}" args`, source);
      return verb.run(ctx, args, session);
    }, session, source, gate);
  }
  return Object.freeze(out) as unknown as OpenSession;
}

const REQUIRED_PROVIDER_METHODS = ['status', 'availability', 'create', 'ready', 'destroy', 'list'] as const;
const OPTIONAL_PROVIDER_METHODS = ['channel', 'connect', 'secret', 'framebuffer', 'console', 'state', 'sshAccess', 'pinSshHostKey', 'snapshot', 'restore', 'deleteSnapshot', 'listSnapshots', 'restart', 'stats', 'logs', 'deleteWorkspace', 'workspaceBytes', 'close'] as const;
/** Synchronous optional methods, passed through unwrapped. */
const SYNC_PROVIDER_METHODS = ['snapshotSupport', 'restartSupport', 'workspaceSupport'] as const;

export function defineProvider<O = Record<string, never>>(spec: ProviderSpec<O>): ProviderPlugin<O> {
  checkHeader('provider', spec);
  const source = `provider-${spec.id}`;
  return Object.freeze({
    kind: 'provider' as const,
    id: spec.id,
    version: spec.version,
    contractVersion: spec.contractVersion,
    templates: Object.freeze([...(spec.templates ?? [])]),
    goldens(raw?: Partial<O>): GoldenImages | undefined {
      if (!spec.goldens) return undefined;
      return spec.goldens(validOptions<O>(spec.options, raw, source, `providers.${spec.id}`));
    },
    checkTemplate(template: TemplateConfig): void {
      if (!spec.templateOptions) return;
      const key = `templates["${template.id}"].provider_options`;
      try {
        assertValid(spec.templateOptions, structuredClone(template.provider_options ?? {}), `[vmhub] [${source}] template "${template.id}" provider_options`, source);
      } catch (err) {
        if (!VmhubError.is(err)) throw err;
        throw new VmhubError('INVALID_REQUEST', err.message, { source, hint: `Fix ${key} in the vmhub config file; the provider's README lists the keys (vmhub's own providers: node_modules/@vmhub/server/docs/providers/${spec.id}.md).` });
      }
    },
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
      for (const name of SYNC_PROVIDER_METHODS) {
        const fn = methods[name];
        if (typeof fn === 'function') provider[name] = (fn as (...a: unknown[]) => unknown).bind(methods);
      }
      return Object.freeze(provider) as unknown as Provider;
    },
  });
}

/** Build the identity a machine carries: `vmhub-<instance>-<lease uuid>`. */
export function machineIdentity(instance: string, leaseId: string): string {
  return `${identityPrefix(instance)}${leaseId}`;
}
/** A snapshot's identity, `vmhub-<instance>-snap-<snapshot id>` (SnapshotRef: read back before it is deleted). */
export function snapshotIdentity(instance: string, snapshotId: string): string {
  return `${identityPrefix(instance)}snap-${snapshotId}`;
}
/** A workspace's identity, `vmhub-<instance>-ws-<workspace id>` (WorkspaceRef: read back before it is deleted). */
export function workspaceIdentity(instance: string, workspaceId: string): string {
  return `${identityPrefix(instance)}ws-${workspaceId}`;
}
export function identityPrefix(instance: string): string {
  return `vmhub-${instance}-`;
}
