/**
 * One session per lease (contract 2): `open()` builds it, every capability method runs on it,
 * `dispose()` ends it. What the adapter knows about one device (the lease's options, its screen
 * size, the probe's findings, the input queue) lives here. Each method is a thin call into its
 * android-<capability>.ts file; everything reaches the device through the lease's GuestChannel,
 * so the session works over any transport (adb, docker exec, ssh).
 */
import type { AdapterContext, AdapterSession, LeaseContext } from '@vmhub/core';
import { leaseOptions, type AndroidOptions } from './options.ts';
import { createRuntime, type AndroidRuntime } from './runtime.ts';
import { click } from './android-click.ts';
import { cloneRepo } from './android-clone-repo.ts';
import { close } from './android-close.ts';
import { drag } from './android-drag.ts';
import { exec, shellArgv } from './android-exec.ts';
import { focus } from './android-focus.ts';
import { getFile } from './android-get-file.ts';
import { inspect } from './android-inspect.ts';
import { key } from './android-key.ts';
import { launch } from './android-launch.ts';
import { listWindows } from './android-list-windows.ts';
import { paste } from './android-paste.ts';
import { probe } from './android-probe.ts';
import { putFile } from './android-put-file.ts';
import { screenSize } from './android-screen-size.ts';
import { screenshot } from './android-screenshot.ts';
import { scroll } from './android-scroll.ts';
import { type } from './android-type.ts';

type Methods = Required<Omit<AdapterSession, 'dispose' | 'dispatch'>>;

export interface AndroidSession extends Methods {
  readonly runtime: AndroidRuntime;
  dispose(): void;
}

export function openAndroidSession(instance: AndroidOptions, lease: LeaseContext): AndroidSession {
  const rt = createRuntime(leaseOptions(instance, lease.template.adapter_options));
  const call = <I, R>(fn: (rt: AndroidRuntime, ctx: AdapterContext, input: I) => Promise<R>) => (ctx: AdapterContext, args: I) => fn(rt, ctx, args);
  // Touches, keys and text run one at a time in call order: Android injects each `input` as it
  // comes, so two concurrent vm_type calls would interleave.
  const input = <I>(fn: (rt: AndroidRuntime, ctx: AdapterContext, input: I) => Promise<void>) => (ctx: AdapterContext, args: I) => rt.facts.serial(() => fn(rt, ctx, args));
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
    shellArgv,
    screenSize: (ctx) => screenSize(rt, ctx),
    probe: (ctx) => probe(rt, ctx),
    // Nothing runs in the background: every command ended with its call. Facts go with the lease.
    dispose() {
      rt.facts.clear();
    },
  };
}
