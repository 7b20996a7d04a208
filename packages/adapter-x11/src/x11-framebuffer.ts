/**
 * Screenshots from the framebuffer file the provider shares with the vmhub host (lease.framebuffer():
 * Xvfb -fbdir on a tmpfs, an XWD image the X server draws into). No guest process, no copy
 * through the channel: a read of the file and the same XWD decode as the guest path.
 *
 * Tearing: the X server draws while we read. A frame is taken only when two successive reads are
 * byte-identical (at most MAX_READS reads); a screen that keeps changing faster than that falls
 * back to the guest's `xwd`, which the X server answers between requests, so it never tears.
 */
import { open } from 'node:fs/promises';
import type { AdapterContext, FramebufferSource } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';
import { parseXwdHeader } from './xwd.ts';

const MAX_READS = 4;
/** Largest file read: 8192×8192 at 32 bpp plus header and colormap. */
const MAX_BYTES = 8192 * 8192 * 4 + 65_536;

/** The lease's framebuffer file, asked once per session; undefined when the provider has none. */
export function framebufferOf(rt: X11Runtime, ctx: AdapterContext): Promise<FramebufferSource | undefined> {
  if (!rt.options.screenshot_framebuffer || !ctx.framebuffer) return Promise.resolve(undefined);
  return rt.facts.remember('framebuffer', async () => {
    const fb = await ctx.framebuffer!();
    return fb?.format === 'xwd' ? fb : undefined;
  });
}

/**
 * One untorn XWD frame from the file, or undefined (file gone, not XWD, or still changing after
 * MAX_READS reads). The file's size is read once per call; both reads fill buffers of that size.
 */
export async function readStableFrame(path: string): Promise<Buffer | undefined> {
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = await file.stat();
    if (size < 100 || size > MAX_BYTES) return undefined;
    let prev = Buffer.allocUnsafe(size);
    let next = Buffer.allocUnsafe(size);
    if ((await file.read(prev, 0, size, 0)).bytesRead !== size) return undefined;
    try { parseXwdHeader(prev); } catch { return undefined; }
    for (let i = 1; i < MAX_READS; i++) {
      if ((await file.read(next, 0, size, 0)).bytesRead !== size) return undefined;
      if (next.equals(prev)) return next;
      [prev, next] = [next, prev];
    }
    return undefined;
  } finally {
    await file.close();
  }
}
