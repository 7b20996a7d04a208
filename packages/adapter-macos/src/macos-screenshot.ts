/**
 * Screenshot: the RFB client's live framebuffer (kept current by incremental updates, so a
 * screenshot does not wait for a frame), as RGBA. Within a second of an input action the next
 * full update is awaited briefly, so the picture shows what the app drew in answer. With
 * vnc: "none", screencapture in the guest (PNG, needs Screen Recording).
 */
import type { AdapterContext, RawScreen } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import { captureScreen } from './in-guest.ts';
import type { MacosRuntime } from './runtime.ts';

/** How recent an input action makes a screenshot wait for the next update, and for how long at most. */
const SETTLE_AFTER_INPUT_MS = 1000;
const SETTLE_WAIT_MS = 400;

export async function screenshot(rt: MacosRuntime, ctx: AdapterContext): Promise<RawScreen> {
  throwIfCancelled(ctx.signal, 'screenshot');
  if (!rt.viaVnc) {
    const shot = await captureScreen(rt, ctx);
    return { data: shot.png, format: 'png', width: shot.width, height: shot.height };
  }
  const rfb = await rt.vnc.client();
  const recent = Date.now() - rt.vnc.lastInputAt < SETTLE_AFTER_INPUT_MS;
  const shot = await rfb.screenshot(recent ? { fresh: true, timeoutMs: SETTLE_WAIT_MS } : {});
  return { data: shot.data, format: 'rgba', width: shot.width, height: shot.height };
}
