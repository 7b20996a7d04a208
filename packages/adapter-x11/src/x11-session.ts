/**
 * One session per lease (contract 2): `open()` builds it, every capability method and verb runs
 * on it, and `dispose()` ends it. Everything this adapter knows about one machine lives here —
 * the lease's options, the screen size, the probe's findings, the keycodes vm_type bound, the
 * queue that runs the lease's input actions one at a time — so nothing is keyed by lease id and
 * nothing outlives the lease. Every method is a thin call into its x11-<capability>.ts file.
 */
import type { AdapterContext, AdapterSession, LeaseContext } from '@vmhub/core';
import { leaseOptions, type X11Options } from './options.ts';
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
import { type, unbindTyped } from './x11-type.ts';

/** How long dispose may spend giving back bound keycodes (the machine may already be gone). */
const DISPOSE_TIMEOUT_MS = 3000;

// No shellArgv: vm_exec {shell} is core's /bin/sh -c, the shell of every Linux.
type Methods = Required<Omit<AdapterSession, 'dispose' | 'shellArgv'>>;

export interface X11Session extends Methods {
  /** The lease's options and facts: what verbs (x11-verbs.ts) run with. */
  readonly runtime: X11Runtime;
  dispose(): Promise<void>;
}

export function openX11Session(instance: X11Options, lease: LeaseContext): X11Session {
  const rt = createRuntime(leaseOptions(instance, lease.template.adapter_options));
  const call = <I, R>(fn: (rt: X11Runtime, ctx: AdapterContext, input: I) => Promise<R>) => (ctx: AdapterContext, args: I) => fn(rt, ctx, args);
  // Keyboard, pointer and clipboard actions run one at a time, in call order; one whose command
  // was killed (cancelled, timed out) releases the keys and buttons it left down.
  const input = <I>(fn: (rt: X11Runtime, ctx: AdapterContext, input: I) => Promise<void>) => (ctx: AdapterContext, args: I) =>
    rt.facts.serial(() => releasingInput(rt, ctx, () => fn(rt, ctx, args)));
  return {
    runtime: rt,
    screenshot: (ctx) => screenshot(rt, ctx),
    inspect: call(inspect),
    listWindows: (ctx) => listWindows(rt, ctx),
    focus: call(focus),
    close: call(close),
    launch: call(launch),
    click: input(click),
    type: input(type),
    key: input(key),
    paste: input(paste),
    drag: input(drag),
    scroll: input(scroll),
    putFile: call(putFile),
    getFile: call(getFile),
    cloneRepo: call(cloneRepo),
    exec: call(exec),
    screenSize: (ctx) => screenSize(rt, ctx),
    probe: (ctx) => probe(rt, ctx),
    async dispose() {
      // Held keys need no release here: an input action whose command was killed released them
      // already (x11-release-input.ts), and the XTEST path releases its own in `finally`. Bound
      // keycodes are given back — through the guest only when vm_type bound any there, so the
      // session had opened the channel and core has not closed it yet. An input action
      // still running is not waited for: the lease is over and core refuses further calls.
      if (rt.facts.bindings.byChar.size > 0) {
        await unbindTyped(rt, { ...lease, signal: AbortSignal.timeout(DISPOSE_TIMEOUT_MS) }, DISPOSE_TIMEOUT_MS);
      }
      await rt.xtest.close(DISPOSE_TIMEOUT_MS);
      rt.facts.clear();
      rt.frameBuffers.release();
    },
  };
}
