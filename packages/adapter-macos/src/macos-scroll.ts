/** Scroll: RFB wheel buttons (4/5 up/down, 6/7 left/right) at the point; a CGEvent via JXA with vnc: "none". */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import { osaScroll } from './in-guest.ts';
import type { MacosRuntime } from './runtime.ts';
import { withRfb } from './vnc-input.ts';

export async function scroll(rt: MacosRuntime, ctx: AdapterContext, input: { x: number; y: number; direction: 'up' | 'down' | 'left' | 'right'; amount: number }): Promise<void> {
  throwIfCancelled(ctx.signal, 'scroll');
  if (!rt.viaVnc) return osaScroll(rt, ctx, input.x, input.y, input.direction, input.amount);
  await withRfb(rt, (rfb) => rfb.scroll(input.x, input.y, input.direction, input.amount));
}
