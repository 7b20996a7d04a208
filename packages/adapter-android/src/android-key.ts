/**
 * Keys: every name is checked against the map (keys.ts) before anything is sent. Single keys run
 * as `input keyevent K…`, chords as `input keycombination K1 K2…` (Android 13+): on a device
 * without keycombination a chord is CAPABILITY_UNAVAILABLE naming it, and nothing is sent.
 */
import type { AdapterContext } from '@vmhub/core';
import { androidError } from './errors.ts';
import { parseKeys } from './keys.ts';
import { probeFacts } from './probe.ts';
import type { AndroidRuntime } from './runtime.ts';

export async function key(rt: AndroidRuntime, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const steps = parseKeys(input.keys);
  const chords = steps.filter((s) => s.length > 1);
  if (chords.length && !(await probeFacts(rt, ctx)).chords) {
    throw androidError('CAPABILITY_UNAVAILABLE', `this device's "input" has no keycombination command (Android 13+), so the chord${chords.length > 1 ? 's' : ''} ${chords.map((c) => c.join('+')).join(', ')} cannot be pressed; single keys work`, {
      details: { unsupported: chords.map((c) => c.join('+')) },
    });
  }
  // Consecutive single keys share one keyevent; each chord is its own keycombination.
  const lines: string[] = [];
  const args: string[] = [];
  let singles: string[] = [];
  const ref = (code: string): string => {
    args.push(code);
    return `"\${${args.length}}"`;
  };
  const flushSingles = (): void => {
    if (singles.length) lines.push(`input keyevent ${singles.map(ref).join(' ')}`);
    singles = [];
  };
  for (const step of steps) {
    if (step.length === 1) {
      singles.push(step[0]!);
      continue;
    }
    flushSingles();
    lines.push(`input keycombination ${step.map(ref).join(' ')}`);
  }
  flushSingles();
  const device = await rt.device(ctx);
  await device.sh(lines.join(' && '), args, { label: 'input keyevent' });
}
