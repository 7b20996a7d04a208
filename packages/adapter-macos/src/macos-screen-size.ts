/** Screen size in pixels: the RFB ServerInit/DesktopSize, or the in-guest capture's PNG size. */
import type { AdapterContext } from '@vmhub/core';
import { captureScreen } from './in-guest.ts';
import type { MacosRuntime, Size } from './runtime.ts';

export async function screenSize(rt: MacosRuntime, ctx: AdapterContext): Promise<Size> {
  if (!rt.viaVnc) return rt.screen ?? captureScreen(rt, ctx).then((s) => ({ width: s.width, height: s.height }));
  const rfb = await rt.vnc.client();
  return { width: rfb.width, height: rfb.height };
}
