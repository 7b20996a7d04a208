/**
 * Screenshots from the framebuffer file the provider shares with the vmhub host (lease.framebuffer():
 * Xvfb -fbdir on a tmpfs, an XWD image the X server draws into). No guest process, no copy
 * through the channel: a read of the file and the same XWD decode as the guest path.
 *
 * Tearing: the X server draws while we read. A frame is taken only when two successive reads are
 * byte-identical (at most MAX_READS reads); a screen that keeps changing faster than that falls
 * back to the guest's `xwd`, which the X server answers between requests, so it never tears.
 * The live view's stream asks for one read (`reads: 1`, ScreenshotOptions.live): its next frame
 * follows within milliseconds, so a torn one is drawn over at once.
 */
import { open } from 'node:fs/promises';
import type { AdapterContext, FramebufferSource } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';
import { parseXwdHeader } from './xwd.ts';

const MAX_READS = 4;
/** A session's read buffers unused this long are dropped (FrameBuffers): an agent that paused longer pays one decode. */
export const IDLE_RELEASE_MS = 15_000;
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
 *
 * They also keep the session's last stable frame: which buffer holds its dump, and what `use`
 * made of it (the decoded pixels, 3 MB at 1280×800). A screen that has not changed since costs
 * one read and one compare, and the same decoded frame is handed out again — no second read, no
 * decode, no new buffer (at 2560×1440 the decode was 12 ms and its 11 MB kept the collector
 * busy for more). Callers treat what `use` returns as read-only.
 *
 * Kept while the lease is in use, not while it idles: unused for `idleMs` (IDLE_RELEASE_MS), they
 * are dropped, so an idle lease costs the server no frame memory (11 MB at 1280×800:
 * bench/density.mjs); the next screenshot makes them again and decodes afresh.
 */
export class FrameBuffers {
  #pair: [Buffer, Buffer] | undefined;
  #busy = false;
  #last: { index: 0 | 1; use: (dump: Buffer) => unknown; value: unknown } | undefined;
  #idle: NodeJS.Timeout | undefined;
  readonly #idleMs: number;

  constructor(idleMs = IDLE_RELEASE_MS) {
    this.#idleMs = idleMs;
  }

  /** Buffers of `size` bytes for one read, the last stable frame they hold, and the function that hands them back. */
  take(size: number): Lease {
    if (this.#busy) return { pair: [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)], done: () => undefined };
    this.#busy = true;
    clearTimeout(this.#idle);
    if (this.#pair?.[0].length !== size) {
      this.#pair = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
      this.#last = undefined;
    }
    return {
      pair: this.#pair,
      last: this.#last,
      keep: (index, use, value) => { this.#last = { index, use, value }; },
      forget: () => { this.#last = undefined; },
      done: () => {
        this.#busy = false;
        this.#idle = setTimeout(() => this.release(), this.#idleMs);
        this.#idle.unref();
      },
    };
  }

  /** Drop the buffers and the frame they keep (session end, restore, idleness). */
  release(): void {
    clearTimeout(this.#idle);
    this.#idle = undefined;
    this.#pair = undefined;
    this.#last = undefined;
  }
}

interface Lease {
  pair: [Buffer, Buffer];
  last?: { index: 0 | 1; use: (dump: Buffer) => unknown; value: unknown };
  /** Record the stable frame in pair[index] and its value (only on the session's own pair). */
  keep?: (index: 0 | 1, use: (dump: Buffer) => unknown, value: unknown) => void;
  /** The last stable frame's buffer is about to be read into: it no longer holds that frame. */
  forget?: () => void;
  done: () => void;
}

/**
 * One untorn XWD frame from the file, decoded by `use` while the read buffers are still ours, or
 * undefined (file gone, not XWD, or still changing after MAX_READS reads). The file's size is
 * read once per call; every read fills a buffer of that size.
 *
 * A read byte-identical to the session's last stable frame is taken at once, with the value
 * `use` made of it then: whatever the X server drew while we read, the bytes are a frame the
 * screen really showed (a draw the read missed is simply later than it), and they are exactly
 * the frame the last call returned.
 */
export async function readStableFrame<T>(path: string, use: (dump: Buffer) => T, buffers: FrameBuffers = new FrameBuffers(), options: { reads?: number | undefined } = {}): Promise<T | undefined> {
  const reads = options.reads ?? MAX_READS;
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return undefined;
  }
  let lease: Lease | undefined;
  try {
    const { size } = await file.stat();
    if (size < 100 || size > MAX_BYTES) return undefined;
    lease = buffers.take(size);
    const { pair } = lease;
    const last = lease.last?.use === use ? lease.last : undefined;
    if (!last) lease.forget?.();
    // prev: the latest read; next: the buffer the next read goes into.
    let prev: 0 | 1 = last ? (1 - last.index) as 0 | 1 : 0;
    if ((await file.read(pair[prev], 0, size, 0)).bytesRead !== size) return undefined;
    if (last && pair[prev].equals(pair[last.index])) return last.value as T;
    try { parseXwdHeader(pair[prev]); } catch { return undefined; }
    if (reads <= 1) {
      // One read is enough for the caller (ScreenshotOptions.live): whatever it holds.
      const value = use(pair[prev]);
      lease.keep?.(prev, use, value);
      return value;
    }
    for (let i = 1; i < reads; i++) {
      const next = (1 - prev) as 0 | 1;
      if (next === last?.index) lease.forget?.();
      if ((await file.read(pair[next], 0, size, 0)).bytesRead !== size) return undefined;
      if (pair[next].equals(pair[prev])) {
        const value = use(pair[next]);
        lease.keep?.(next, use, value);
        return value;
      }
      prev = next;
    }
    return undefined;
  } finally {
    lease?.done();
    await file.close();
  }
}
