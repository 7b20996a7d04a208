/**
 * The console adapter: hypervisor-level screen, keyboard and pointer through the provider's
 * ConsoleHandle (QMP), plus files/exec/clone through the GuestChannel when the template has one.
 * One file per capability; the adapter kit builds the per-lease session from them (the console
 * and channel are core's to close).
 */
import { readPackageVersion, type LeaseContext } from '@vmhub/core';
import { defineAdapter, openSession, type KitAdapterSpec } from '@vmhub/core/adapter-kit';
import { click } from './console-click.ts';
import { cloneRepo } from './console-clone-repo.ts';
import { drag } from './console-drag.ts';
import { exec } from './console-exec.ts';
import { getFile } from './console-get-file.ts';
import { key } from './console-key.ts';
import { putFile } from './console-put-file.ts';
import { screenSize } from './console-screen-size.ts';
import { screenshot } from './console-screenshot.ts';
import { scroll } from './console-scroll.ts';
import { type } from './console-type.ts';
import { ConsoleAdapterOptionsSchema, consoleSettings, type ConsoleAdapterOptions, type ConsoleSettings } from './options.ts';
import { probe } from './probe.ts';
import { createRuntime, type ConsoleSession, type ConsoleState } from './runtime.ts';

/** This package's version, from its package.json. */
export const VERSION = readPackageVersion(import.meta.url);

const spec: KitAdapterSpec<ConsoleAdapterOptions, ConsoleSettings, ConsoleState> = {
  id: 'console',
  version: VERSION,
  contractVersion: 2,
  options: ConsoleAdapterOptionsSchema,
  complete: consoleSettings,
  runtime: createRuntime,
  // Declared: what these serve. No inspect/list_windows/focus/close/launch/paste/dispatch: the
  // router answers CAPABILITY_UNAVAILABLE for those.
  methods: {
    screenshot, screenSize, type, key, click, drag, scroll, cloneRepo,
    // Files, exec and the probe need no session state: the lease's channel is all they use.
    putFile: (_s, ctx, input) => putFile(ctx, input),
    getFile: (_s, ctx, input) => getFile(ctx, input),
    exec: (_s, ctx, input) => exec(ctx, input),
    probe: (_s, ctx) => probe(ctx),
  },
  dispose(s) {
    s.screen = undefined;
  },
};

export const consoleAdapter = defineAdapter(spec);

/** One lease's session as the kit makes it, before core wraps it (kept from before the kit; tests use it). */
export function openConsoleSession(options: ConsoleAdapterOptions, lease: LeaseContext): ConsoleSession {
  return openSession(spec, consoleSettings(options), lease) as ConsoleSession;
}
