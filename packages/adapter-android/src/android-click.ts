/**
 * Click: a tap (`input tap x y`); count 2 or 3 = that many taps in one device command (two
 * `input` processes back to back); right button = long press (`input swipe x y x y <ms>`).
 * Android has no middle button and no modifier keys on touches: those are refused.
 */
import type { AdapterContext, Modifier, MouseButton } from '@vmhub/core';
import { androidError } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';

export async function click(rt: AndroidRuntime, ctx: AdapterContext, input: { x: number; y: number; button: MouseButton; count: number; modifiers: Modifier[] }): Promise<void> {
  if (input.modifiers.length) {
    throw androidError('INVALID_REQUEST', `a touch cannot carry modifier keys (${input.modifiers.join('+')}): send the chord with vm_key, then tap`, { details: { modifiers: input.modifiers } });
  }
  if (input.button === 'middle') throw androidError('INVALID_REQUEST', 'Android touch input has no middle button: use "left" (tap) or "right" (long press)');
  const x = String(Math.round(input.x));
  const y = String(Math.round(input.y));
  const device = await rt.device(ctx);
  if (input.button === 'right') {
    await device.run(['input', 'swipe', x, y, x, y, String(rt.options.long_press_ms)]);
    return;
  }
  if (input.count <= 1) {
    await device.run(['input', 'tap', x, y]);
    return;
  }
  const taps = Array.from({ length: input.count }, () => 'input tap "$1" "$2"').join(' && ');
  await device.sh(taps, [x, y], { label: 'input tap' });
}
