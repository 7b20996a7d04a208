/**
 * vm_type {cadence: "human"}: for applications that drop fast input (web forms that validate per
 * key, terminals over slow links, games), the text goes out one character at a time through the
 * adapter's own `type`, with a jittered pause before each character after the first:
 *
 * - 30–120 ms (uniform) between characters — 75 ms on average, about 130 words a minute;
 * - 80–250 ms more after a space, a newline, a tab or punctuation (. , ; : ! ?), as a person
 *   pauses between words and sentences;
 * - at most HUMAN_CADENCE_MAX_CHARS characters (an INVALID_REQUEST naming the limit otherwise), and
 *   the pauses together at most HUMAN_CADENCE_MAX_PAUSE_MS: a text whose drawn pauses add up to
 *   more has them all scaled down to fit, so the call ends well inside its 55 s deadline.
 *
 * One implementation for every adapter with `type`; between two characters another call on the
 * same lease may run (each character is one input action of the session's queue).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError } from '../errors.ts';

export const HUMAN_CADENCE_MAX_CHARS = 300;
export const HUMAN_CADENCE_MAX_PAUSE_MS = 40_000;
/** Pause before each character after the first, in ms. */
export const HUMAN_KEY_MS = { min: 30, max: 120 } as const;
/** More after a word or sentence break, in ms. */
export const HUMAN_BREAK_MS = { min: 80, max: 250 } as const;
const BREAK = /[\s.,;:!?]/u;

/** The pause before each character of `chars` (0 for the first), scaled to fit the total. */
export function humanPauses(chars: readonly string[], random: () => number = Math.random): number[] {
  const between = (r: { min: number; max: number }) => r.min + random() * (r.max - r.min);
  const pauses = chars.map((_, i) => (i === 0 ? 0 : between(HUMAN_KEY_MS) + (BREAK.test(chars[i - 1]!) ? between(HUMAN_BREAK_MS) : 0)));
  const total = pauses.reduce((a, b) => a + b, 0);
  const scale = total > HUMAN_CADENCE_MAX_PAUSE_MS ? HUMAN_CADENCE_MAX_PAUSE_MS / total : 1;
  return pauses.map((p) => Math.round(p * scale));
}

/** The characters of `text` for a human-cadence call, or INVALID_REQUEST naming the limit. */
export function humanChars(text: string): string[] {
  const chars = [...text.replace(/\r\n?/g, '\n')];
  if (chars.length > HUMAN_CADENCE_MAX_CHARS) {
    throw new VmhubError('INVALID_REQUEST', `vm_type: cadence "human" takes at most ${HUMAN_CADENCE_MAX_CHARS} characters (got ${chars.length}); nothing was typed`, {
      hint: `Type the text in parts of up to ${HUMAN_CADENCE_MAX_CHARS} characters, or leave cadence out (fast) for long text.`,
      details: { max_chars: HUMAN_CADENCE_MAX_CHARS, chars: chars.length },
    });
  }
  return chars;
}

/** Type `chars` one by one through `typeOne`, pausing as humanPauses says; stops when `signal` aborts. */
export async function typeHuman(chars: readonly string[], typeOne: (ch: string) => Promise<void>, signal: AbortSignal, random?: () => number): Promise<void> {
  const pauses = humanPauses(chars, random);
  for (let i = 0; i < chars.length; i++) {
    if (pauses[i]! > 0) await sleep(pauses[i]!, undefined, { signal });
    signal.throwIfAborted();
    await typeOne(chars[i]!);
  }
}
