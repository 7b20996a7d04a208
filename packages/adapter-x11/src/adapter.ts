/**
 * The adapter definition: capabilities, options, verbs, and the methods each instance serves.
 * Every method is a thin call into its x11-<capability>.ts file with the instance's runtime.
 */
import { defineAdapter, CONTRACT_VERSION, type AdapterContext, type AdapterMethods, type Capability } from '@vmhub/core';
import { completeOptions, resolveOptions, X11OptionsSchema, type X11Options, type X11OptionsInput } from './options.ts';
import { createRuntime, type X11Runtime } from './runtime.ts';
import { click } from './x11-click.ts';
import { cloneRepo } from './x11-clone-repo.ts';
import { close } from './x11-close.ts';
import { drag } from './x11-drag.ts';
import { exec } from './x11-exec.ts';
import { focus } from './x11-focus.ts';
import { getFile } from './x11-get-file.ts';
import { inspect } from './x11-inspect.ts';
import { key } from './x11-key.ts';
import { launch } from './x11-launch.ts';
import { listWindows } from './x11-list-windows.ts';
import { paste } from './x11-paste.ts';
import { probe } from './x11-probe.ts';
import { releasingInput } from './x11-release-input.ts';
import { putFile } from './x11-put-file.ts';
import { screenSize } from './x11-screen-size.ts';
import { screenshot } from './x11-screenshot.ts';
import { scroll } from './x11-scroll.ts';
import { type } from './x11-type.ts';
import { x11Verbs } from './x11-verbs.ts';

export const ADAPTER_VERSION = '0.1.0';

export const X11_CAPABILITIES: readonly Capability[] = [
  'screenshot', 'inspect', 'list_windows', 'focus', 'close', 'launch',
  'click', 'type', 'key', 'paste', 'drag', 'scroll', 'dispatch',
  'put_file', 'get_file', 'clone_repo', 'exec',
];

/** The runtime that last served each lease: verbs (declared statically) reuse its options. */
const leaseRuntimes = new Map<string, X11Runtime>();
const templateRuntimes = new WeakMap<object, X11Runtime>();
const NO_OPTIONS = Object.freeze({});

function runtimeFor(ctx: AdapterContext): X11Runtime {
  const seen = leaseRuntimes.get(ctx.lease_id);
  if (seen) return seen;
  const raw = ctx.template?.adapter_options ?? NO_OPTIONS;
  let rt = templateRuntimes.get(raw);
  if (!rt) {
    rt = createRuntime(resolveOptions(raw));
    templateRuntimes.set(raw, rt);
  }
  return rt;
}

function methods(options: X11Options): AdapterMethods {
  const base = createRuntime(options);
  // A template's adapter_options refine the instance's options for its leases (display, delays).
  const perTemplate = new WeakMap<object, X11Runtime>();
  const runtime = (ctx: AdapterContext): X11Runtime => {
    const overrides = ctx.template?.adapter_options;
    if (!overrides || Object.keys(overrides).length === 0) return base;
    let rt = perTemplate.get(overrides);
    if (!rt) {
      rt = createRuntime(resolveOptions({ ...options, ...overrides }), base.cache);
      perTemplate.set(overrides, rt);
    }
    return rt;
  };
  const bind = <I, R>(fn: (rt: X11Runtime, ctx: AdapterContext, input: I) => Promise<R>) => (ctx: AdapterContext, input: I) => {
    const rt = runtime(ctx);
    leaseRuntimes.set(ctx.lease_id, rt);
    return fn(rt, ctx, input);
  };
  // Keyboard, pointer and clipboard actions of one lease run one at a time, in call order; one
  // whose command was killed (cancelled, timed out) releases the keys and buttons it left down.
  const input = <I>(fn: (rt: X11Runtime, ctx: AdapterContext, input: I) => Promise<void>) => (ctx: AdapterContext, args: I) =>
    base.cache.serial(ctx.lease_id, () => releasingInput(runtime(ctx), ctx, () => bind(fn)(ctx, args)));
  return {
    screenshot: (ctx) => bind(screenshot)(ctx, undefined),
    inspect: bind(inspect),
    listWindows: (ctx) => bind(listWindows)(ctx, undefined),
    focus: bind(focus),
    close: bind(close),
    launch: bind(launch),
    click: input(click),
    type: input(type),
    key: input(key),
    paste: input(paste),
    drag: input(drag),
    scroll: input(scroll),
    putFile: bind(putFile),
    getFile: bind(getFile),
    cloneRepo: bind(cloneRepo),
    exec: bind(exec),
    screenSize: (ctx) => bind((r, c) => screenSize(r, c))(ctx, undefined),
    probe: (ctx) => bind((r, c) => probe(r, c))(ctx, undefined),
    async release(leaseId: string) {
      base.cache.drop(leaseId);
      if (leaseRuntimes.get(leaseId)?.cache === base.cache) leaseRuntimes.delete(leaseId);
    },
  };
}

export const x11Adapter = defineAdapter<X11OptionsInput>({
  id: 'x11',
  version: ADAPTER_VERSION,
  contractVersion: CONTRACT_VERSION,
  capabilities: X11_CAPABILITIES,
  options: X11OptionsSchema,
  verbs: x11Verbs(runtimeFor),
  create: (options) => methods(completeOptions(options as Parameters<typeof completeOptions>[0])),
});
