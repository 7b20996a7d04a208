/**
 * The adapter definition: what it declares (capabilities, options, verbs), the per-lease runtime
 * — the lease's MCP client (opened on first use, tools/list read once) and what the session learns
 * about the machine — and one function per capability (windows-cursortouch-<capability>.ts). The
 * adapter kit builds the session: options merged per lease, input actions one at a time.
 */
import type { Capability } from '@vmhub/core';
import { defineAdapter } from '@vmhub/core/adapter-kit';
import { WindowsMcp } from './guest.ts';
import { WindowsOptionsSchema, type WindowsOptions, type WindowsOptionsInput } from './options.ts';
import { probe } from './probe.ts';
import { createRuntime, type WinRuntime } from './runtime.ts';
import { ADAPTER_VERSION } from './version.ts';
import { click } from './windows-cursortouch-click.ts';
import { cloneRepo } from './windows-cursortouch-clone-repo.ts';
import { close } from './windows-cursortouch-close.ts';
import { windowsVerbs } from './windows-cursortouch-dispatch.ts';
import { drag } from './windows-cursortouch-drag.ts';
import { exec, shellArgv } from './windows-cursortouch-exec.ts';
import { focus } from './windows-cursortouch-focus.ts';
import { getFile } from './windows-cursortouch-get-file.ts';
import { inspect } from './windows-cursortouch-inspect.ts';
import { key } from './windows-cursortouch-key.ts';
import { launch } from './windows-cursortouch-launch.ts';
import { listWindows } from './windows-cursortouch-list-windows.ts';
import { paste } from './windows-cursortouch-paste.ts';
import { putFile } from './windows-cursortouch-put-file.ts';
import { screenSize } from './windows-cursortouch-screen-size.ts';
import { screenshot } from './windows-cursortouch-screenshot.ts';
import { scroll } from './windows-cursortouch-scroll.ts';
import { type } from './windows-cursortouch-type.ts';

export type { WindowsSession } from './runtime.ts';

export const windowsAdapter = defineAdapter<WindowsOptionsInput, WindowsOptions, WinRuntime>({
  id: 'windows-cursortouch',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  options: WindowsOptionsSchema,
  verbs: windowsVerbs,
  // defineAdapter validated the options and filled the defaults.
  complete: (options) => options as WindowsOptions,
  runtime: (options, lease) => createRuntime(options, new WindowsMcp(lease, options, ADAPTER_VERSION)),
  methods: {
    screenshot, inspect, listWindows, focus, close, launch, click, type, key, paste, drag, scroll,
    putFile, getFile, cloneRepo, exec, shellArgv, screenSize,
    probe: (rt, ctx) => probe(rt, ctx, WINDOWS_CAPABILITIES),
  },
  // The MCP client is the session's own: closed here, its sockets with it.
  dispose: (rt) => rt.mcp.close(),
});

/** What it declares: the capabilities its functions (and verbs) serve, derived by the kit. */
export const WINDOWS_CAPABILITIES: readonly Capability[] = windowsAdapter.capabilities;
