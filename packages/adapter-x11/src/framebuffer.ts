/**
 * Screenshots from the framebuffer file the provider shares with the vmhub host (lease.framebuffer():
 * Xvfb -fbdir on a tmpfs, an XWD image the X server draws into). No guest process, no copy
 * through the channel: a read of the file (the adapter kit's readStableFrame: two agreeing reads,
 * the session's last frame kept in its FrameBuffers) and the same XWD decode as the guest path.
 * A screen that keeps changing faster than the reads falls back to the guest's `xwd`, which the
 * X server answers between requests, so it never tears.
 */
import type { AdapterContext, FramebufferSource } from '@vmhub/core';
import { FrameBuffers, readStableFrame } from '@vmhub/core/adapter-kit';
import type { X11Runtime } from './runtime.ts';
import { parseXwdHeader } from './xwd.ts';

/** What the provider shares of the lease's display on this host, asked once per session. */
export function displayOf(rt: X11Runtime, ctx: AdapterContext): Promise<FramebufferSource | undefined> {
  if (!ctx.framebuffer) return Promise.resolve(undefined);
  return rt.facts.remember('framebuffer', async () => {
    const fb = await ctx.framebuffer!();
    return fb?.format === 'xwd' ? fb : undefined;
  });
}

/** The lease's framebuffer file, for screenshots; undefined when the provider has none (or the option is off). */
export function framebufferOf(rt: X11Runtime, ctx: AdapterContext): Promise<FramebufferSource | undefined> {
  return rt.options.screenshot_framebuffer ? displayOf(rt, ctx) : Promise.resolve(undefined);
}

/** One untorn XWD frame of the file decoded by `use`, or undefined (readStableFrame; `reads: 1` for the live view). */
export function readXwdFrame<T>(path: string, use: (dump: Buffer) => T, buffers: FrameBuffers = new FrameBuffers(), reads?: number): Promise<T | undefined> {
  return readStableFrame(path, use, buffers, { reads, accept: isXwd });
}

function isXwd(dump: Buffer): boolean {
  try {
    parseXwdHeader(dump);
    return true;
  } catch {
    return false;
  }
}
