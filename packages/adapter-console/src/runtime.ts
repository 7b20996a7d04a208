/**
 * A console session's state: the resolved options and what this lease's machine showed — the
 * screen size from the lease's last screendump, which the tablet's 0..32767 axes are scaled to
 * (and which core reads through screenSize() to check points before any screenshot). The lease
 * itself is not kept: every call brings its context (the same lease plus the call's signal).
 */
import type { AdapterSession } from '@vmhub/core';
import type { KitSession } from '@vmhub/core/adapter-kit';
import type { ConsoleSettings } from './options.ts';

export interface Screen { width: number; height: number }

export interface ConsoleState extends ConsoleSettings {
  /** The screen size from the lease's last screendump; undefined until one was taken. */
  screen: Screen | undefined;
}

/** A lease's session, as the adapter kit makes it: every declared capability is there. */
export type ConsoleSession = KitSession<ConsoleState> & Required<Pick<AdapterSession, 'screenshot' | 'screenSize' | 'type' | 'key' | 'click' | 'drag' | 'scroll' | 'putFile' | 'getFile' | 'exec' | 'cloneRepo' | 'probe' | 'dispose'>>;

export function createRuntime(settings: ConsoleSettings): ConsoleState {
  return { ...settings, screen: undefined };
}
