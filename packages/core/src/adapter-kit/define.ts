/**
 * The kit's defineAdapter: an adapter written as a per-lease runtime factory and plain capability
 * functions `(rt, ctx, input)`. The kit builds the session core opens per lease and supplies what
 * every adapter used to write itself:
 * - the options merge (instance options refined by the template's adapter_options, validated);
 * - the serial input queue: click, type, key, paste, drag and scroll run one at a time, in call
 *   order, optionally inside the adapter's `aroundInput` (adapter-x11 releases held keys there);
 * - cancellation: each call's `ctx.signal` also aborts when the session ends, so a command still
 *   running at the lease's end is killed in the guest;
 * - `session.runtime`, what verbs run with, and dispose() calling the adapter's own once;
 * - restored() (AdapterSession.restored) calling the adapter's `restored(rt, ctx)`, when it has one.
 * It then hands the session to core's defineAdapter, which checks declared = implemented, wraps
 * errors and gates disposed sessions, exactly as for a hand-written session.
 */
import type { TSchema } from '@sinclair/typebox';
import type { AdapterContext, AdapterSession, LeaseContext, VerbSpec } from '../adapter.ts';
import { CAPABILITIES, CAPABILITY_METHOD, type Capability } from '../capabilities.ts';
import { defineAdapter as defineContractAdapter, type AdapterPlugin } from '../define.ts';
import { InputQueue } from './input-queue.ts';
import { mergeOptions } from './options.ts';

type Method<K extends keyof AdapterSession> = NonNullable<AdapterSession[K]>;
type Input<K extends keyof AdapterSession> = Parameters<Method<K>> extends [AdapterContext, (infer I)?] ? I : never;
type Output<K extends keyof AdapterSession> = ReturnType<Method<K>>;

/** A capability as a plain function of the lease's runtime. */
export type CapabilityFn<R, K extends keyof AdapterSession> =
  Parameters<Method<K>> extends [AdapterContext] ? (rt: R, ctx: AdapterContext) => Output<K> : (rt: R, ctx: AdapterContext, input: Input<K>) => Output<K>;

type RuntimeMethods = 'screenshot' | 'inspect' | 'listWindows' | 'focus' | 'close' | 'launch' | 'click' | 'type' | 'key' | 'keyHold' | 'paste' | 'getClipboard' | 'drag' | 'scroll' | 'putFile' | 'getFile' | 'cloneRepo' | 'installGitCredential' | 'exec' | 'screenSize' | 'probe' | 'releaseHeld';

/** One function per declared capability (plus screenSize / probe), each taking the runtime first. */
export type CapabilityFns<R> = { [K in RuntimeMethods]?: CapabilityFn<R, K> } & {
  /** What vm_exec {shell} runs (AdapterSession.shellArgv); synchronous, no runtime. */
  shellArgv?: (command: string) => string[];
};

/** A session the kit made: the contract's methods plus the lease's runtime. */
export type KitSession<R> = AdapterSession & { readonly runtime: R };

/** What the kit hands the runtime factory besides options and lease. */
export interface SessionKit {
  /** Aborts when the session ends (dispose); every call's ctx.signal aborts with it too. */
  readonly ended: AbortSignal;
}

export interface KitAdapterSpec<O, I, R> {
  /** Short id used in templates (`adapter: "x11"`). */
  id: string;
  /** The package version: read it from package.json (readPackageVersion). */
  version: string;
  /** The contract version the adapter was written against, as a literal (e.g. `2`). */
  contractVersion: number;
  /**
   * What the adapter declares. Default: the capabilities `methods` serve (and `dispatch` when
   * there are verbs), in core's order — declared = implemented by construction.
   */
  capabilities?: readonly Capability[];
  /** Options schema; validated with defaults filled before `complete`, and again per lease when a template refines them. */
  options?: TSchema;
  /**
   * Validated options → what the runtime gets: env fallbacks, cross-field rules. Runs once per
   * instance, and per lease whose template sets adapter_options. Default: the options as they are.
   */
  complete?(options: O): I;
  /** vm_dispatch verbs; each runs on the session (its `runtime` is the lease's). */
  verbs?: Record<string, VerbSpec<KitSession<R>>>;
  /** Per lease, at open(): the runtime every capability function gets. No I/O: connect lazily. */
  runtime(options: I, lease: LeaseContext, kit: SessionKit): R;
  /** The capability functions. */
  methods: CapabilityFns<R>;
  /**
   * Around every input action, inside the queue (e.g. release held keys when the command was
   * killed). Default: run it.
   */
  aroundInput?(rt: R, ctx: AdapterContext, run: () => Promise<void>): Promise<void>;
  /**
   * The lease's machine went back to a snapshot, or this lease is a fork started from one
   * (AdapterSession.restored): core calls it once before the next call. Drop whatever the runtime
   * keeps of the old machine (connections, mappings, memoised facts, helper state) so the next
   * call connects and learns again; nothing of the old machine need be given back, it is gone.
   * Runs outside the input queue. Default: none (the session keeps what it has).
   */
  restored?(rt: R, ctx: AdapterContext): Promise<void> | void;
  /** End of the lease, once, after the session's signal aborted: stop what the runtime started. Must not throw. */
  dispose?(rt: R, lease: LeaseContext): Promise<void> | void;
}

/** Input actions: serialised per session. */
export const INPUT_METHODS: ReadonlySet<string> = new Set(['click', 'type', 'key', 'keyHold', 'paste', 'drag', 'scroll', 'releaseHeld']);

export function defineAdapter<O = Record<string, never>, I = O, R = unknown>(spec: KitAdapterSpec<O, I, R>): AdapterPlugin<O> {
  const source = `adapter-${spec.id}`;
  const complete = spec.complete ?? ((o: O) => o as unknown as I);
  return defineContractAdapter<O, KitSession<R>>({
    id: spec.id,
    version: spec.version,
    contractVersion: spec.contractVersion,
    capabilities: spec.capabilities ?? servedCapabilities(spec.methods, spec.verbs),
    ...(spec.options ? { options: spec.options } : {}),
    ...(spec.verbs ? { verbs: spec.verbs } : {}),
    create(validated) {
      const instance = complete(validated);
      return {
        open(lease) {
          const overrides = lease.template.adapter_options;
          const options = overrides && Object.keys(overrides).length > 0 ? complete(mergeOptions(spec.options, validated as O & object, overrides, source)) : instance;
          return openSession(spec, options, lease);
        },
      };
    },
  });
}

/** The capabilities a set of functions (and verbs) serves, in core's order. */
export function servedCapabilities(methods: CapabilityFns<unknown> | object, verbs?: object): Capability[] {
  const has = (name: string) => typeof (methods as Record<string, unknown>)[name] === 'function';
  return CAPABILITIES.filter((c) => (c === 'dispatch' ? Object.keys(verbs ?? {}).length > 0 : has(CAPABILITY_METHOD[c])));
}

/**
 * The session the kit makes for one lease, before core wraps it: for an adapter's own tests (see
 * its runtime, call a method core would refuse) and for an adapter that exported its session
 * factory before it moved onto the kit. `options` are complete (after `complete`).
 */
export function openSession<O, I, R>(spec: KitAdapterSpec<O, I, R>, options: I, lease: LeaseContext): KitSession<R> {
  const ending = new AbortController();
  const rt = spec.runtime(options, lease, { ended: ending.signal });
  const queue = new InputQueue();
  // Each call's signal also aborts when the session ends: nothing the lease started outlives it.
  const bound = (ctx: AdapterContext): AdapterContext => ({ ...ctx, signal: AbortSignal.any([ctx.signal, ending.signal]) });
  const session: Record<string, unknown> = { runtime: rt };
  for (const [name, fn] of Object.entries(spec.methods) as [string, ((...a: unknown[]) => Promise<unknown>) | undefined][]) {
    if (typeof fn !== 'function') continue;
    if (name === 'shellArgv') {
      session.shellArgv = fn;
    } else if (INPUT_METHODS.has(name)) {
      const around = spec.aroundInput;
      session[name] = (ctx: AdapterContext, input: unknown) => {
        const c = bound(ctx);
        const run = () => fn(rt, c, input) as Promise<void>;
        return queue.serial(() => (around ? around(rt, c, run) : run()));
      };
    } else {
      session[name] = (ctx: AdapterContext, input: unknown) => fn(rt, bound(ctx), input);
    }
  }
  if (spec.restored) {
    const restored = spec.restored;
    session.restored = async (ctx: AdapterContext) => { await restored(rt, bound(ctx)); };
  }
  session.dispose = async () => {
    ending.abort();
    await spec.dispose?.(rt, lease);
  };
  return session as unknown as KitSession<R>;
}
