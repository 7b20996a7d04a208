/** Click: RFB pointer events (modifiers held as keys), or cliclick with vnc: "none". */
import type { AdapterContext, Modifier as CoreModifier, MouseButton } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import { cliclickClick } from './in-guest.ts';
import type { MacosRuntime } from './runtime.ts';
import { holding, macModifiers, modifierKeysym, withRfb } from './vnc-input.ts';

export async function click(rt: MacosRuntime, ctx: AdapterContext, input: { x: number; y: number; button: MouseButton; count: number; modifiers: CoreModifier[] }): Promise<void> {
  throwIfCancelled(ctx.signal, 'click');
  const mods = macModifiers(input.modifiers);
  if (!rt.viaVnc) return cliclickClick(rt, ctx, input.x, input.y, input.button, input.count, mods);
  await withRfb(rt, (rfb) => holding(rfb, mods.map((m) => modifierKeysym(rt, m)), () => rfb.click(input.x, input.y, { button: input.button, count: input.count })));
}
