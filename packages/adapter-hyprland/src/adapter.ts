/**
 * The adapter definition: what it declares (capabilities, options, verbs), the per-lease runtime
 * and one function per capability (hyprland-<capability>.ts); the adapter kit builds the session.
 * One adapter, two compositors: Hyprland or sway, chosen per machine by probing (desktop.ts).
 */
import { readPackageVersion, type Capability } from '@vmhub/core';
import { defineAdapter } from '@vmhub/core/adapter-kit';
import { stopCapture } from './capture.ts';
import { click } from './hyprland-click.ts';
import { cloneRepo, installGitCredential } from './hyprland-clone-repo.ts';
import { close } from './hyprland-close.ts';
import { hyprlandVerbs } from './hyprland-dispatch.ts';
import { drag } from './hyprland-drag.ts';
import { exec } from './hyprland-exec.ts';
import { focus } from './hyprland-focus.ts';
import { getFile } from './hyprland-get-file.ts';
import { inspect } from './hyprland-inspect.ts';
import { key } from './hyprland-key.ts';
import { launch } from './hyprland-launch.ts';
import { listWindows } from './hyprland-list-windows.ts';
import { paste } from './hyprland-paste.ts';
import { getClipboard } from './hyprland-get-clipboard.ts';
import { putFile } from './hyprland-put-file.ts';
import { screenSize } from './hyprland-screen-size.ts';
import { screenshot } from './hyprland-screenshot.ts';
import { scroll } from './hyprland-scroll.ts';
import { type } from './hyprland-type.ts';
import { HyprlandOptionsSchema, type HyprlandOptions, type HyprlandOptionsInput } from './options.ts';
import { probe } from './probe.ts';
import { createRuntime, type HyprRuntime } from './runtime.ts';
import { HOLDER_STOP_SCRIPT } from './vpointer.ts';
import { restored } from './restored.ts';

export type { HyprlandSession } from './runtime.ts';

/** This package's version, from its package.json. */
export const ADAPTER_VERSION = readPackageVersion(import.meta.url);

/** How long dispose may spend stopping the pointer holder. */
const DISPOSE_TIMEOUT_MS = 3000;

export const hyprlandAdapter = defineAdapter<HyprlandOptionsInput, HyprlandOptions, HyprRuntime>({
  id: 'hyprland',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  options: HyprlandOptionsSchema,
  verbs: hyprlandVerbs,
  // defineAdapter validated the options and filled defaults.
  complete: (options) => options as HyprlandOptions,
  runtime: (options) => createRuntime(options),
  // Input runs one action at a time (the kit's queue): a pointer action is its own virtual
  // device that the compositor drops when the command ends, killed or not; keys go to the
  // session's kept virtual keyboard (vkeyboard.ts). No shellArgv: core's /bin/sh -c.
  methods: { screenshot, inspect, listWindows, focus, close, launch, click, type, key, paste, getClipboard, drag, scroll, putFile, getFile, cloneRepo, installGitCredential, exec, screenSize, probe },
  // Restored to a snapshot or forked: forget the old machine's environment (restored.ts).
  restored,
  async dispose(rt, lease) {
    stopCapture(rt);
    // The pointer holder and the keyboard helper are what runs between calls: stop them (best
    // effort and bounded — the machine may be gone; they also end by themselves when idle).
    if (rt.holderStarted && rt.facts.peek('desktop')) {
      const ctx = { ...lease, signal: AbortSignal.timeout(DISPOSE_TIMEOUT_MS) };
      try {
        const guest = await rt.guest(ctx);
        await guest.sh(HOLDER_STOP_SCRIPT, [rt.holderId], { cleanup: true, timeoutMs: DISPOSE_TIMEOUT_MS, label: 'pointer holder stop' });
      } catch {
        // Nothing more to do: the holder exits after pointer_hold_seconds without use.
      }
    }
    rt.facts.clear();
  },
});

/** What it declares: the capabilities its functions (and verbs) serve, derived by the kit. */
export const HYPRLAND_CAPABILITIES: readonly Capability[] = hyprlandAdapter.capabilities;
