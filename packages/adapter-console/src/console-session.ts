/**
 * open(): one console session per lease. What the adapter learns about that machine lives here
 * and nowhere else: the screen size from the lease's last screendump, which the tablet's
 * 0..32767 axes are scaled to (and which core reads through screenSize() to check points before
 * any screenshot). dispose() drops it; the console and channel are core's to close.
 */
import type { AdapterSession, LeaseContext } from '@vmhub/core';
import { click } from './console-click.ts';
import { cloneRepo } from './console-clone-repo.ts';
import { drag } from './console-drag.ts';
import { exec } from './console-exec.ts';
import { getFile } from './console-get-file.ts';
import { key } from './console-key.ts';
import { probe } from './console-probe.ts';
import { putFile } from './console-put-file.ts';
import { screenSize } from './console-screen-size.ts';
import { screenshot } from './console-screenshot.ts';
import { scroll } from './console-scroll.ts';
import { type } from './console-type.ts';
import { consoleSettings, type ConsoleAdapterOptions, type ConsoleSettings } from './options.ts';

export interface Screen { width: number; height: number }

/** A session's state: the resolved options and what this lease's machine showed. */
export interface ConsoleState extends ConsoleSettings {
  /** The screen size from the lease's last screendump; undefined until one was taken. */
  screen: Screen | undefined;
}

export type ConsoleSession = Required<Pick<AdapterSession, 'screenshot' | 'screenSize' | 'type' | 'key' | 'click' | 'drag' | 'scroll' | 'putFile' | 'getFile' | 'exec' | 'cloneRepo' | 'probe' | 'dispose'>>;

// The lease itself is not kept: every call brings its context (the same lease plus the call's signal).
export function openConsoleSession(options: ConsoleAdapterOptions, _lease: LeaseContext): ConsoleSession {
  const s: ConsoleState = { ...consoleSettings(options), screen: undefined };
  return {
    screenshot: (ctx) => screenshot(s, ctx),
    screenSize: (ctx) => screenSize(s, ctx),
    type: (ctx, input) => type(s, ctx, input),
    key: (ctx, input) => key(s, ctx, input),
    click: (ctx, input) => click(s, ctx, input),
    drag: (ctx, input) => drag(s, ctx, input),
    scroll: (ctx, input) => scroll(s, ctx, input),
    putFile,
    getFile,
    exec,
    cloneRepo: (ctx, input) => cloneRepo(s, ctx, input),
    probe,
    dispose() {
      s.screen = undefined;
    },
  };
}
