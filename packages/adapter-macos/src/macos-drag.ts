/** Drag: press at `from`, move, release at `to` over RFB; cliclick dd/dm/du with vnc: "none". */
import type { AdapterContext, MouseButton, Point } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import { cliclickDrag } from './in-guest.ts';
import type { MacosRuntime } from './runtime.ts';
import { withRfb } from './vnc-input.ts';

export async function drag(rt: MacosRuntime, ctx: AdapterContext, input: { from: Point; to: Point; button: MouseButton }): Promise<void> {
  throwIfCancelled(ctx.signal, 'drag');
  if (!rt.viaVnc) return cliclickDrag(rt, ctx, input.from, input.to, input.button);
  await withRfb(rt, (rfb) => rfb.drag(input.from, input.to, input.button));
}
