/** Shapes shared by the suites and the fake target. */
import type { LeaseContext } from '@vmhub/core';

/**
 * Optional probes that read what an action really did inside the target, so the suite checks
 * effects, not only that a call returned. Give the ones your target can observe.
 */
export interface TargetEffects {
  /** Everything typed or pasted into the target since it was made, in order. */
  typedText?(): Promise<string>;
  /** The clipboard's current text. */
  clipboard?(): Promise<string>;
  /** The pointer position in screen pixels. */
  pointer?(): Promise<{ x: number; y: number }>;
  /** Key chords pressed so far, as the adapter sent them (e.g. "ctrl+v"), oldest first. */
  keys?(): Promise<string[]>;
  /** Scroll events seen so far, oldest first. */
  scrolls?(): Promise<{ x: number; y: number; direction: string; amount: number }[]>;
}

/** A running machine an adapter can drive, made by the test (and torn down by dispose). */
export interface AdapterTarget {
  /**
   * The lease the suite opens a session on: lease id, machine, template, channel(), console().
   * channel()/console() should open once and be closed by dispose() (as the server's session does).
   */
  context: LeaseContext;
  dispose(): Promise<void>;
  effects?: TargetEffects;
  /**
   * What the target sees when a check fails (processes, the desktop's own log, ...): called
   * once per failed check, its text (bounded to 4 000 characters) appended to the failure's
   * message, so a failure on a machine you cannot log into still says why. Optional; it must not
   * change the target. A diagnose() that throws adds its error instead.
   */
  diagnose?(): Promise<string>;
}
