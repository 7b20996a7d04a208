/**
 * The lease's screen as the live view, the recordings and the MCP App show it — one path for all: the
 * adapter's capture shaped by core's shapeScreenshot (the shaping vm_screenshot uses: decode,
 * scale to fit, encode), never touching the agent's own screen mapping (its coordinates stay its
 * own).
 */
import type { RawScreen } from '@vmhub/core';
import { MAX_SIDE, shapePixels, shapeScreenshot, type RegionPixels, type ShapedScreenshot } from '@vmhub/core/screenshot';
import type { Runtime } from '../runtime.ts';
import { streamFrame } from './stream-state.ts';

/** The largest image the live view or a recording takes. */
const MAX_BYTES = 16 * 1024 * 1024;

/** `raw` as an image at most `maxWidth` wide. */
export function liveImage(raw: RawScreen, format: 'png' | 'jpeg', maxWidth: number): Promise<ShapedScreenshot> {
  return shapeScreenshot(raw, { format, maxWidth, maxHeight: MAX_SIDE, maxBytes: MAX_BYTES });
}

/** Decoded pixels (the live stream's latest capture) shaped the same way. */
export function livePixels(px: RegionPixels, format: 'png' | 'jpeg', maxWidth: number): Promise<ShapedScreenshot> {
  return shapePixels(px, { format, maxWidth, maxHeight: MAX_SIDE, maxBytes: MAX_BYTES });
}

export interface FrameOptions {
  format: 'png' | 'jpeg';
  maxWidth: number;
  /** A stream capture at most this old is the frame. */
  maxAgeMs: number;
  /** Bound of binding the lease and capturing, when the stream has no fresh frame. */
  timeoutMs: number;
  /** Bind as this principal (undefined: the caller already checked the lease is theirs). */
  principal?: string;
}

/**
 * The lease's screen now, shaped. While someone watches the lease, the stream's own latest
 * capture is the frame: one capture serves the viewers, the recording and the MCP App. Otherwise a
 * capture of its own through the lease's binding (its session opened if need be). Undefined: the
 * machine has no screen. Errors are the binding's (LEASE_NOT_READY, LEASE_EXPIRED…).
 */
export async function leaseFrame(rt: Runtime, leaseId: string, o: FrameOptions): Promise<ShapedScreenshot | undefined> {
  const streamed = streamFrame(rt.sessions.get(leaseId), o.maxAgeMs);
  if (streamed) return livePixels(streamed, o.format, o.maxWidth);
  const b = await rt.sessions.bind(leaseId, AbortSignal.timeout(o.timeoutMs), o.principal);
  if (!b.session?.screenshot || !b.adapter?.capabilities.includes('screenshot')) return undefined;
  return liveImage(await b.session.screenshot(b.context), o.format, o.maxWidth);
}
