/**
 * The console adapter's methods: hypervisor-level screen, keyboard and pointer through the
 * provider's ConsoleHandle (QMP), plus files/exec/clone through the GuestChannel when the
 * template has one. One file per capability; this one wires them to a runtime.
 */
import type { AdapterMethods } from '@vmhub/core';
import { click } from './console-click.ts';
import { cloneRepo } from './console-clone-repo.ts';
import { drag } from './console-drag.ts';
import { exec } from './console-exec.ts';
import { getFile } from './console-get-file.ts';
import { key } from './console-key.ts';
import { probe } from './console-probe.ts';
import { putFile } from './console-put-file.ts';
import { createRuntime } from './console-runtime.ts';
import { screenSize } from './console-screen-size.ts';
import { screenshot } from './console-screenshot.ts';
import { scroll } from './console-scroll.ts';
import { type } from './console-type.ts';
import type { ConsoleAdapterOptions } from './options.ts';

export function createConsoleAdapterMethods(options: ConsoleAdapterOptions): AdapterMethods {
  const rt = createRuntime(options);
  return {
    screenshot: (ctx) => screenshot(rt, ctx),
    screenSize: (ctx) => screenSize(rt, ctx),
    type: (ctx, input) => type(rt, ctx, input),
    key: (ctx, input) => key(rt, ctx, input),
    click: (ctx, input) => click(rt, ctx, input),
    drag: (ctx, input) => drag(rt, ctx, input),
    scroll: (ctx, input) => scroll(rt, ctx, input),
    putFile,
    getFile,
    exec,
    cloneRepo: (ctx, input) => cloneRepo(rt, ctx, input),
    probe,
    async release(leaseId) {
      rt.screens.delete(leaseId);
    },
  };
}
