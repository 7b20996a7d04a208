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

/**
 * The two read buffers a session reuses from one screenshot to the next: a fresh pair per call
 * (2 × 15 MB at 2560×1440) made the server spend more time collecting garbage than reading.
 * A call that finds them in use (concurrent screenshots) reads into its own.
 */
export class FrameBuffers {
  #pair: [Buffer, Buffer] | undefined;
  #busy = false;

  /** Buffers of `size` bytes for one read, and the function that hands them back. */
  take(size: number): { pair: [Buffer, Buffer]; done: () => void } {
    if (this.#busy) return { pair: [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)], done: () => undefined };
    this.#busy = true;
    if (this.#pair?.[0].length !== size) this.#pair = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
    return { pair: this.#pair, done: () => { this.#busy = false; } };
  }

  release(): void {
    this.#pair = undefined;
  }
}

/**
 * One untorn XWD frame from the file, decoded by `use` while the read buffers are still ours, or
 * undefined (file gone, not XWD, or still changing after MAX_READS reads). The file's size is
 * read once per call; both reads fill buffers of that size.
 */
export async function readStableFrame<T>(path: string, use: (dump: Buffer) => T, buffers: FrameBuffers = new FrameBuffers()): Promise<T | undefined> {
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return undefined;
  }
  let lease: { pair: [Buffer, Buffer]; done: () => void } | undefined;
  try {
    const { size } = await file.stat();
    if (size < 100 || size > MAX_BYTES) return undefined;
    lease = buffers.take(size);
    let [prev, next] = lease.pair;
    if ((await file.read(prev, 0, size, 0)).bytesRead !== size) return undefined;
    try { parseXwdHeader(prev); } catch { return undefined; }
    for (let i = 1; i < MAX_READS; i++) {
      if ((await file.read(next, 0, size, 0)).bytesRead !== size) return undefined;
      if (next.equals(prev)) return use(next);
      [prev, next] = [next, prev];
    }
    return undefined;
  } finally {
    lease?.done();
    await file.close();
  }
}
