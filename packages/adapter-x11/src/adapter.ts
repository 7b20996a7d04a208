/**
 * The adapter definition: what it declares (capabilities, options, verbs), the per-lease runtime
 * and one function per capability (x11-<capability>.ts). The adapter kit builds the session from
 * these: options merged per lease, input actions queued one at a time, calls cancelled with the
 * session. An instance holds only its validated options; everything per lease is in the runtime.
 */
import { readPackageVersion, type Capability } from '@vmhub/core';
import { defineAdapter } from '@vmhub/core/adapter-kit';
import { completeOptions, X11OptionsSchema, type X11Options, type X11OptionsInput } from './options.ts';
import { probe } from './probe.ts';
import { releasingInput } from './release-input.ts';
import { createRuntime, type X11Runtime } from './runtime.ts';

export type { X11Session } from './runtime.ts';
import { click } from './x11-click.ts';
import { cloneRepo, installGitCredential } from './x11-clone-repo.ts';
import { close } from './x11-close.ts';
import { x11Verbs } from './x11-dispatch.ts';
import { drag } from './x11-drag.ts';
import { exec } from './x11-exec.ts';
import { focus } from './x11-focus.ts';
import { getFile } from './x11-get-file.ts';
import { inspect } from './x11-inspect.ts';
import { key } from './x11-key.ts';
import { keyHold, releaseHeld, releaseHeldKeys } from './x11-key-hold.ts';
import { getClipboard } from './x11-get-clipboard.ts';
import { launch } from './x11-launch.ts';
import { listWindows } from './x11-list-windows.ts';
import { paste } from './x11-paste.ts';
import { putFile } from './x11-put-file.ts';
import { screenSize } from './x11-screen-size.ts';
import { screenshot } from './x11-screenshot.ts';
import { scroll } from './x11-scroll.ts';
import { type, unbindTyped } from './x11-type.ts';
import { restored } from './restored.ts';

/** This package's version, from its package.json. */
export const ADAPTER_VERSION = readPackageVersion(import.meta.url);

/** How long dispose may spend giving back bound keycodes (the machine may already be gone). */
const DISPOSE_TIMEOUT_MS = 3000;

export const x11Adapter = defineAdapter<X11OptionsInput, X11Options, X11Runtime>({
  id: 'x11',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  options: X11OptionsSchema,
  verbs: x11Verbs,
  // defineAdapter validated the options and filled defaults; the env fallback is read here.
  complete: (options) => completeOptions(options as Parameters<typeof completeOptions>[0]),
  runtime: (options) => createRuntime(options),
  // No shellArgv: vm_exec {shell} is core's /bin/sh -c, the shell of every Linux.
  methods: { screenshot, inspect, listWindows, focus, close, launch, click, type, key, keyHold, paste, getClipboard, drag, scroll, putFile, getFile, cloneRepo, installGitCredential, exec, screenSize, probe, releaseHeld },
  // An input action whose command was killed (cancelled, timed out) releases the keys and
  // buttons it left down.
  aroundInput: releasingInput,
  // Restored to a snapshot or forked: drop connections, mappings and facts (restored.ts).
  restored,
  async dispose(rt, lease) {
    // Keys vm_key {action: "down"} still holds are released first (x11-key-hold.ts), while the
    // channel and the XTEST connection are open. Other held keys need no release here: an input
    // action whose command was killed released them already (release-input.ts), and the XTEST
    // path releases its own in `finally`. Bound keycodes are given back — through the guest only when vm_type bound any there, so the
    // session had opened the channel and core has not closed it yet. An input action still
    // running is not waited for: the lease is over and core refuses further calls.
    await releaseHeldKeys(rt, { ...lease, signal: AbortSignal.timeout(DISPOSE_TIMEOUT_MS) });
    if (rt.bindings.byChar.size > 0) {
      await unbindTyped(rt, { ...lease, signal: AbortSignal.timeout(DISPOSE_TIMEOUT_MS) }, DISPOSE_TIMEOUT_MS);
    }
    await rt.xtest.close(DISPOSE_TIMEOUT_MS);
    rt.facts.clear();
    rt.bindings.byChar.clear();
    rt.frameBuffers.release();
  },
});

/** What it declares: the capabilities its functions (and verbs) serve, derived by the kit. */
export const X11_CAPABILITIES: readonly Capability[] = x11Adapter.capabilities;
