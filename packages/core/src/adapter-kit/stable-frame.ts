/**
 * Reading a framebuffer file the guest's display server keeps drawing into, shared with the vmhub
 * host (X11: Xvfb's -fbdir XWD file; Hyprland/sway: the capture helper's kept frame). No guest
 * process per screenshot: a read of the file.
 *
 * Tearing: the server draws while we read. A frame is taken only when two successive reads are
 * byte-identical (at most `reads`, default MAX_READS); a screen that keeps changing faster than
 * that gives no frame, and the adapter captures another way (X11's `xwd`, the helper's `c`).
 * `reads: 1` takes the first read (the live view's stream, ScreenshotOptions.live: its next frame
 * follows within milliseconds, so a torn one is drawn over at once).
 *
 * A read byte-identical to the session's last stable frame is taken at once, with the value `use`
 * made of it then: whatever the server drew while we read, the bytes are a frame the screen
 * really showed, and they are exactly the frame the last call returned.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

const MAX_READS = 4;
/** A session's read buffers unused this long are dropped (FrameBuffers): an agent that paused longer pays one decode. */
const IDLE_RELEASE_MS = 15_000;
/** Largest file read: 8192×8192 at 32 bpp plus header and colormap. */
const MAX_BYTES = 8192 * 8192 * 4 + 65_536;

interface Kept { index: 0 | 1; key: unknown; value: unknown }

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
  #last: Kept | undefined;
  #idle: NodeJS.Timeout | undefined;
  readonly #idleMs: number;

  constructor(idleMs = IDLE_RELEASE_MS) {
    this.#idleMs = idleMs;
  }

  /** Buffers of `size` bytes for one read, the last stable frame they hold, and the function that hands them back. */
  take(size: number): Lease {
    if (this.#busy) return { pair: [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)], done: () => undefined };
    this.#busy = true;
    if (this.#pair?.[0].length !== size) {
      this.#pair = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
      this.#last = undefined;
    }
    return {
      pair: this.#pair,
      last: this.#last,
      keep: (kept) => { this.#last = kept; },
      forget: () => { this.#last = undefined; },
      done: () => {
        this.#busy = false;
        // One timer per session, re-armed (refresh) at every read rather than made anew: the live
        // stream reads 30 times a second. A read in progress when it fires keeps the buffers.
        if (this.#idle) this.#idle.refresh();
        else {
          this.#idle = setTimeout(() => { if (!this.#busy) this.release(); }, this.#idleMs);
          this.#idle.unref();
        }
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
  last?: Kept;
  /** Record the stable frame in pair[index] and its value (only on the session's own pair). */
  keep?: (kept: Kept) => void;
  /** The last stable frame's buffer is about to be read into: it no longer holds that frame. */
  forget?: () => void;
  done: () => void;
}

export interface StableFrameOptions {
  /** Reads before the screen counts as still changing (default 4); 1 takes the first read. */
  reads?: number | undefined;
  /** The size the file must have (what its header promised); another size gives no frame. */
  bytes?: number;
  /** Whether a read is a frame `use` can decode (its header); one that is not gives no frame. */
  accept?: (dump: Buffer) => boolean;
  /** What the last frame must have been decoded under to be handed out again (default: `use` itself). */
  key?: unknown;
}

/**
 * One untorn frame from the file, decoded by `use` while the read buffers are still ours, or
 * undefined (file gone, a symbolic link, of another size, not `accept`ed, or still changing after
 * `reads` reads).
 * The file's size is read once per call; every read fills a buffer of that size.
 */
export async function readStableFrame<T>(path: string, use: (dump: Buffer) => T, buffers: FrameBuffers = new FrameBuffers(), options: StableFrameOptions = {}): Promise<T | undefined> {
  const reads = options.reads ?? MAX_READS;
  const key = options.key ?? use;
  let file;
  try {
    // Never through a link: the guest writes the directory, and a link it planted would have the
    // server read one of its own files (another lease's screen) as this lease's frame.
    file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  let lease: Lease | undefined;
  try {
    const { size } = await file.stat();
    if (size === 0 || size > MAX_BYTES || (options.bytes !== undefined && size !== options.bytes)) return undefined;
    lease = buffers.take(size);
    const { pair } = lease;
    const last = lease.last?.key === key ? lease.last : undefined;
    if (!last) lease.forget?.();
    // prev: the latest read; next: the buffer the next read goes into.
    let prev: 0 | 1 = last ? (1 - last.index) as 0 | 1 : 0;
    if ((await file.read(pair[prev], 0, size, 0)).bytesRead !== size) return undefined;
    if (last && pair[prev].equals(pair[last.index])) return last.value as T;
    for (let i = 1; i < reads; i++) {
      const next = (1 - prev) as 0 | 1;
      if (next === last?.index) lease.forget?.();
      if ((await file.read(pair[next], 0, size, 0)).bytesRead !== size) return undefined;
      const same = pair[next].equals(pair[prev]);
      prev = next;
      if (same) break;
      if (i === reads - 1) return undefined;
    }
    // One read (reads ≤ 1: whatever it holds), or the last two agreed: the frame taken is the
    // one `accept` judges (its header may have changed between the reads).
    if (options.accept && !options.accept(pair[prev])) return undefined;
    const value = use(pair[prev]);
    lease.keep?.({ index: prev, key, value });
    return value;
  } finally {
    lease?.done();
    await file.close();
  }
}
