/**
 * One session per lease (contract 2): `open()` builds it, every capability runs on it, dispose()
 * ends it. It owns the lease's SSH link and RFB client (both opened on first use) and the queue
 * that runs input actions one at a time; nothing is keyed by lease id and nothing outlives it.
 */
import type { AdapterContext, AdapterSession, LeaseContext } from '@vmhub/core';
import { click } from './macos-click.ts';
import { cloneRepo } from './macos-clone-repo.ts';
import { close } from './macos-close.ts';
import { drag } from './macos-drag.ts';
import { exec } from './macos-exec.ts';
import { focus } from './macos-focus.ts';
import { getFile } from './macos-get-file.ts';
import { key } from './macos-key.ts';
import { launch } from './macos-launch.ts';
import { listWindows } from './macos-list-windows.ts';
import { probe } from './macos-probe.ts';
import { putFile } from './macos-put-file.ts';
import { screenSize } from './macos-screen-size.ts';
import { screenshot } from './macos-screenshot.ts';
import { scroll } from './macos-scroll.ts';
import { type } from './macos-type.ts';
import { leaseOptions, type MacosOptions } from './options.ts';
import { MacosRuntime } from './runtime.ts';

// No shellArgv: vm_exec {shell} is core's /bin/sh -c, which every macOS has (over SSH like any argv).
type Methods = Required<Omit<AdapterSession, 'dispose' | 'inspect' | 'paste' | 'shellArgv'>>;

export interface MacosSession extends Methods {
  readonly runtime: MacosRuntime;
  dispose(): Promise<void>;
}

export function openMacosSession(instance: MacosOptions, lease: LeaseContext): MacosSession {
  const rt = new MacosRuntime(leaseOptions(instance, lease.template.adapter_options), lease);
  const call = <I, R>(fn: (rt: MacosRuntime, ctx: AdapterContext, input: I) => Promise<R>) => (ctx: AdapterContext, args: I) => fn(rt, ctx, args);
  const input = <I>(fn: (rt: MacosRuntime, ctx: AdapterContext, input: I) => Promise<void>) => (ctx: AdapterContext, args: I) => rt.serial(() => fn(rt, ctx, args));
  return {
    runtime: rt,
    screenshot: (ctx) => screenshot(rt, ctx),
    listWindows: (ctx) => listWindows(rt, ctx),
    focus: call(focus),
    close: call(close),
    launch: call(launch),
    click: input(click),
    type: input(type),
    key: input(key),
    drag: input(drag),
    scroll: input(scroll),
    putFile: call(putFile),
    getFile: call(getFile),
    cloneRepo: call(cloneRepo),
    exec: call(exec),
    screenSize: (ctx) => screenSize(rt, ctx),
    probe: (ctx) => probe(rt, ctx),
    // The SSH connection and the RFB client are the session's own: closed here (core closes the
    // streams under them too, but the client's keepalives and update requests stop first).
    dispose: () => rt.close(),
  };
}
