/**
 * One session per lease (contract 2): `open()` builds it, every capability method and verb runs
 * on it, and `dispose()` ends it. It holds the lease's options, its MCP client (opened on first
 * use, tools/list read once), and what it learned about the machine (desktop size and origin,
 * pointer, home) — nothing is keyed by lease id and nothing outlives the lease. Input actions run
 * one at a time, in call order. Every method is a thin call into its
 * windows-cursortouch-<capability>.ts file.
 */
import type { AdapterContext, AdapterSession, Capability, LeaseContext } from '@vmhub/core';
import { WindowsMcp } from './connection.ts';
import { leaseOptions, type WindowsOptions } from './options.ts';
import { createRuntime, type WinRuntime } from './runtime.ts';
import { ADAPTER_VERSION } from './version.ts';
import { click } from './windows-cursortouch-click.ts';
import { cloneRepo } from './windows-cursortouch-clone-repo.ts';
import { close } from './windows-cursortouch-close.ts';
import { drag } from './windows-cursortouch-drag.ts';
import { exec, shellArgv } from './windows-cursortouch-exec.ts';
import { focus } from './windows-cursortouch-focus.ts';
import { getFile } from './windows-cursortouch-get-file.ts';
import { inspect } from './windows-cursortouch-inspect.ts';
import { key } from './windows-cursortouch-key.ts';
import { launch } from './windows-cursortouch-launch.ts';
import { listWindows } from './windows-cursortouch-list-windows.ts';
import { paste } from './windows-cursortouch-paste.ts';
import { probe } from './windows-cursortouch-probe.ts';
import { putFile } from './windows-cursortouch-put-file.ts';
import { screenSize } from './windows-cursortouch-screen-size.ts';
import { screenshot } from './windows-cursortouch-screenshot.ts';
import { scroll } from './windows-cursortouch-scroll.ts';
import { type } from './windows-cursortouch-type.ts';

type Methods = Required<Omit<AdapterSession, 'dispose'>>;

export interface WindowsSession extends Methods {
  /** The lease's options, MCP client and facts: what verbs run with. */
  readonly runtime: WinRuntime;
  dispose(): Promise<void>;
}

export function openWindowsSession(instance: WindowsOptions, lease: LeaseContext, declared: readonly Capability[], env: NodeJS.ProcessEnv = process.env): WindowsSession {
  const options = leaseOptions(instance, lease.template.adapter_options);
  const rt = createRuntime(options, new WindowsMcp(lease, options, ADAPTER_VERSION, env));
  const call = <I, R>(fn: (rt: WinRuntime, ctx: AdapterContext, input: I) => Promise<R>) => (ctx: AdapterContext, args: I) => fn(rt, ctx, args);
  const input = <I>(fn: (rt: WinRuntime, ctx: AdapterContext, input: I) => Promise<void>) => (ctx: AdapterContext, args: I) => rt.serial(() => fn(rt, ctx, args));
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
    probe: (ctx) => probe(rt, ctx, declared),
    async dispose() {
      await rt.mcp.close();
    },
  };
}
