/**
 * The adapter definition: what it declares, the per-lease runtime and one function per capability
 * (android-<capability>.ts); the adapter kit builds the session. Touches, keys and text run one at
 * a time in call order (the kit's queue): Android injects each `input` as it comes, so two
 * concurrent vm_type calls would interleave. Everything reaches the device through the lease's
 * GuestChannel, so the session works over any transport (adb, docker exec, ssh).
 */
import { readPackageVersion, type Capability } from '@vmhub/core';
import { defineAdapter } from '@vmhub/core/adapter-kit';
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
import { putFile } from './android-put-file.ts';
import { screenSize } from './android-screen-size.ts';
import { screenshot } from './android-screenshot.ts';
import { scroll } from './android-scroll.ts';
import { type } from './android-type.ts';
import { AndroidOptionsSchema, type AndroidOptions, type AndroidOptionsInput } from './options.ts';
import { probe } from './probe.ts';
import { createRuntime, type AndroidRuntime } from './runtime.ts';

export const ADAPTER_VERSION = readPackageVersion(import.meta.url);

export const androidAdapter = defineAdapter<AndroidOptionsInput, AndroidOptions, AndroidRuntime>({
  id: 'android',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  options: AndroidOptionsSchema,
  // defineAdapter validated the options and filled the defaults.
  complete: (options) => options as AndroidOptions,
  runtime: (options) => createRuntime(options),
  methods: { screenshot, inspect, listWindows, focus, close, launch, click, type, key, paste, drag, scroll, putFile, getFile, cloneRepo, exec, shellArgv, screenSize, probe },
  // Nothing runs in the background: every command ended with its call. Facts go with the lease.
  dispose: (rt) => rt.facts.clear(),
});

/** What it declares: the capabilities its functions (and verbs) serve, derived by the kit. */
export const ANDROID_CAPABILITIES: readonly Capability[] = androidAdapter.capabilities;
