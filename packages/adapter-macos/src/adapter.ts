/**
 * The adapter definition: what it declares, the per-lease runtime (the lease's SSH link and RFB
 * client, both opened on first use) and one function per capability (macos-<capability>.ts). The
 * adapter kit builds the session: options merged per lease, input actions one at a time, every
 * call's signal aborted when the session ends.
 */
import { readPackageVersion, type Capability } from '@vmhub/core';
import { defineAdapter, type KitSession } from '@vmhub/core/adapter-kit';
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
import { putFile } from './macos-put-file.ts';
import { screenSize } from './macos-screen-size.ts';
import { screenshot } from './macos-screenshot.ts';
import { scroll } from './macos-scroll.ts';
import { type } from './macos-type.ts';
import { MacosOptionsSchema, resolveOptions, type MacosOptions, type MacosOptionsInput } from './options.ts';
import { probe } from './probe.ts';
import { MacosRuntime } from './runtime.ts';

/** This package's version, from its package.json. */
export const ADAPTER_VERSION = readPackageVersion(import.meta.url);

/** A lease's session: the contract's methods and its runtime. */
export type MacosSession = KitSession<MacosRuntime>;

export const macosAdapter = defineAdapter<MacosOptionsInput, MacosOptions, MacosRuntime>({
  id: 'macos',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  options: MacosOptionsSchema,
  // defineAdapter validated the schema; resolveOptions adds the cross-field rules.
  complete: (options) => resolveOptions(options),
  runtime: (options, lease) => new MacosRuntime(options, lease),
  // No shellArgv: vm_exec {shell} is core's /bin/sh -c, which every macOS has (over SSH like any argv).
  methods: { screenshot, listWindows, focus, close, launch, click, type, key, drag, scroll, putFile, getFile, cloneRepo, exec, screenSize, probe },
  // The SSH connection and the RFB client are the session's own: closed here (core closes the
  // streams under them too, but the client's keepalives and update requests stop first).
  dispose: (rt) => rt.close(),
});

/** What it declares: the capabilities its functions (and verbs) serve, derived by the kit. */
export const MACOS_CAPABILITIES: readonly Capability[] = macosAdapter.capabilities;
