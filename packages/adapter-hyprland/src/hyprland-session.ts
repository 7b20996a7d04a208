/**
 * One session per lease (contract 2): `open()` builds it, every capability method and verb runs
 * on it, `dispose()` ends it. Everything this adapter knows about one machine lives here — the
 * options, the compositor it found, the layout of the latest screenshot, the probe's findings,
 * the queue that runs input one action at a time — so nothing is keyed by lease id.
 */
import type { AdapterContext, AdapterSession, LeaseContext } from '@vmhub/core';
import { leaseOptions, type HyprlandOptions } from './options.ts';
import { createRuntime, type HyprRuntime } from './runtime.ts';
import { click } from './hyprland-click.ts';
import { cloneRepo } from './hyprland-clone-repo.ts';
import { close } from './hyprland-close.ts';
import { drag } from './hyprland-drag.ts';
import { exec } from './hyprland-exec.ts';
import { focus } from './hyprland-focus.ts';
import { getFile } from './hyprland-get-file.ts';
import { inspect } from './hyprland-inspect.ts';
import { key } from './hyprland-key.ts';
import { launch } from './hyprland-launch.ts';
import { listWindows } from './hyprland-list-windows.ts';
import { paste } from './hyprland-paste.ts';
import { probe } from './hyprland-probe.ts';
import { putFile } from './hyprland-put-file.ts';
import { screenSize } from './hyprland-screen-size.ts';
import { screenshot } from './hyprland-screenshot.ts';
import { scroll } from './hyprland-scroll.ts';
import { type } from './hyprland-type.ts';
import { HOLDER_STOP_SCRIPT } from './vpointer.ts';

/** How long dispose may spend stopping the pointer holder. */
const DISPOSE_TIMEOUT_MS = 3000;

// No shellArgv: vm_exec {shell} is core's /bin/sh -c, the shell of every Linux.
type Methods = Required<Omit<AdapterSession, 'dispose' | 'shellArgv'>>;

export interface HyprlandSession extends Methods {
  /** The lease's options and facts: what verbs (hyprland-verbs.ts) run with. */
  readonly runtime: HyprRuntime;
  dispose(): Promise<void>;
}

export function openHyprlandSession(instance: HyprlandOptions, lease: LeaseContext): HyprlandSession {
  const rt = createRuntime(leaseOptions(instance, lease.template.adapter_options));
  const call = <I, R>(fn: (rt: HyprRuntime, ctx: AdapterContext, input: I) => Promise<R>) => (ctx: AdapterContext, args: I) => fn(rt, ctx, args);
  // Keyboard, pointer and clipboard actions run one at a time, in call order. Each is its own
  // virtual device that the compositor drops when the command ends, killed or not.
  const input = <I>(fn: (rt: HyprRuntime, ctx: AdapterContext, input: I) => Promise<void>) => (ctx: AdapterContext, args: I) =>
    rt.facts.serial(() => fn(rt, ctx, args));
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
      // The pointer holder is the one thing that runs between calls: stop it (best effort and
      // bounded — the machine may be gone; it also ends by itself when idle).
      if (rt.facts.holderStarted && rt.facts.desktop) {
        const ctx = { ...lease, signal: AbortSignal.timeout(DISPOSE_TIMEOUT_MS) };
        try {
          const guest = await rt.guest(ctx);
          await guest.sh(HOLDER_STOP_SCRIPT, [rt.facts.holderId], { cleanup: true, timeoutMs: DISPOSE_TIMEOUT_MS, label: 'pointer holder stop' });
        } catch {
          // Nothing more to do: the holder exits after pointer_hold_seconds without use.
        }
      }
      rt.facts.clear();
    },
  };
}
