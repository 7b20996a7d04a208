/**
 * Key chords ("cmd+shift+t Return"): names checked first (keys.ts), then each chord's keys
 * pressed in order and released in reverse over RFB; System Events `key code … using {…}` with
 * vnc: "none".
 */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import { osaKey } from './in-guest.ts';
import { charKeysym, COMMAND_KEYSYMS, parseChords, withShift, type KeyRef } from './keys.ts';
import type { MacosRuntime } from './runtime.ts';
import { checkSignal, holding, sleep, withRfb } from './vnc-input.ts';

export async function key(rt: MacosRuntime, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const chords = parseChords(input.keys, COMMAND_KEYSYMS[rt.options.command_keysym]);
  throwIfCancelled(ctx.signal, 'key');
  if (!rt.viaVnc) {
    for (const chord of chords) await osaKey(rt, ctx, chord);
    return;
  }
  await withRfb(rt, async (rfb) => {
    for (const chord of chords) {
      checkSignal(ctx, 'key');
      await holding(rfb, keysymsOf(chord, rt.options.shift_style === 'keysym'), async () => undefined);
      await sleep(rt.options.key_delay_ms);
    }
  });
}

/**
 * The keysyms of a chord. With Shift in it, a character key is sent as what Shift makes of it
 * ("shift+a" → Shift_L + "A"), as a VNC viewer does: servers such as x11vnc give the keysym's own
 * character and would release Shift to type a lower-case "a". shift_style "base" keeps the key's.
 */
export function keysymsOf(chord: KeyRef[], shiftedKeysyms: boolean): number[] {
  const shift = chord.some((k) => k.modifier === 'shift');
  return chord.map((k) => (shift && shiftedKeysyms && k.char ? charKeysym(withShift(k.char)) : k.keysym));
}
