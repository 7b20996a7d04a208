/**
 * The live screen as a stream (docs/live-view.md, "The stream"): one capture loop per watched
 * lease, shared by every viewer of it. Each capture is compared with the frame the viewers hold;
 * only the changed rectangle goes out, as a JPEG, in one binary message per viewer (STREAM_HEADER
 * below). A viewer that joins, or one that fell behind (its socket holds more than MAX_QUEUED
 * bytes), gets a whole frame next. The loop captures every FRAME_MS (30 a second) while nothing
 * happens, and at once when poked (an agent's or a person's action just finished), then every
 * BURST_MS for BURST_FOR_MS — the effect of an action often lands a few ms after its call returns. It stops when the last viewer leaves: a lease nobody watches costs no
 * capture.
 *
 * Frames are sent at the screen's own size up to NATIVE_UP_TO pixels wide (the page scales the
 * canvas; a resize per capture cost more than the bytes it saves), wider screens scaled to the
 * widest width a viewer asked for (one scale for all viewers: one capture, one encode).
 */
import type { RawScreen } from '@vmhub/core';
import { changedBox, baselineOf, type Baseline } from '@vmhub/core/router';
import { decodeRegion, sharp, type Region, type RegionPixels } from '@vmhub/core/screenshot';
import { log } from '../log.ts';

/** The binary message: this header (little-endian), then a JPEG of the rectangle. */
export const STREAM_HEADER = 24;
const VERSION = 1;
const FLAG_WHOLE = 1;
/** Captures while nothing happens: at most this often (30 a second). */
const FRAME_MS = 33;
/** After a poke: this often… */
const BURST_MS = 5;
/** …for this long. */
const BURST_FOR_MS = 250;
/** A viewer whose socket holds more than this skips frames and gets a whole one when it drains. */
const MAX_QUEUED = 2 * 1024 * 1024;
/** After a failed capture, wait this long before the next. */
const RETRY_MS = 1000;
const JPEG_QUALITY = 80;
/** Screens up to this wide stream at their own pixels whatever width the viewers asked for. */
const NATIVE_UP_TO = 1920;

export interface StreamViewer {
  /** Send one binary message. */
  send(message: Buffer): void;
  /** Bytes queued on its socket, not yet written. */
  queued(): number;
  /** Widest frame it wants, in pixels. */
  maxWidth: number;
}

export interface StreamStats {
  viewers: number;
  capturing: boolean;
  /** Captures taken for this lease's viewers since the stream was made (one per loop, whatever the number of viewers). */
  captures: number;
  frames_sent: number;
}

export class LeaseStream {
  readonly #capture: () => Promise<RawScreen | undefined>;
  readonly #viewers = new Map<StreamViewer, { whole: boolean; ended: (reason: string) => void }>();
  /** The frame every up-to-date viewer holds (scaled), as the next comparison's baseline. */
  #held: Baseline | undefined;
  /** A copy of the capture #held was made from: an identical capture is skipped before any decode. */
  #heldRaw: Buffer | undefined;
  /** Where #held is on the screen, and when a capture last found the screen as #held shows it. */
  #heldAt: { region: Region; screen: { width: number; height: number }; at: number } | undefined;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #burstUntil = 0;
  #seq = 0;
  #sent = 0;
  #captures = 0;
  #closed = false;

  constructor(capture: () => Promise<RawScreen | undefined>) {
    this.#capture = capture;
  }

  /** `ended` hears why, when the stream ends before the viewer leaves (the lease's session ended). */
  add(viewer: StreamViewer, ended: (reason: string) => void): void {
    if (this.#closed) return ended('the lease\'s session ended');
    this.#viewers.set(viewer, { whole: true, ended });
    this.#loop ??= this.#run().finally(() => { this.#loop = undefined; });
    this.poke();
  }

  remove(viewer: StreamViewer): void {
    this.#viewers.delete(viewer);
    if (this.#viewers.size === 0) {
      this.#held = undefined;
      this.#heldRaw = undefined;
      this.#heldAt = undefined;
    }
    this.#wake?.();
  }

  /** The viewer wants frames at most `maxWidth` wide: it gets a whole frame at that width next. */
  resize(viewer: StreamViewer, maxWidth: number): void {
    viewer.maxWidth = maxWidth;
    const state = this.#viewers.get(viewer);
    if (state) state.whole = true;
    this.poke();
  }

  /** Capture now and keep capturing fast for a moment (an action just finished on the lease). */
  poke(): void {
    this.#burstUntil = Date.now() + BURST_FOR_MS;
    this.#wake?.();
  }

  /** The lease's session ended: no more frames; each viewer's `ended` hears `reason`. */
  close(reason: string): void {
    this.#closed = true;
    const ending = [...this.#viewers.values()];
    this.#viewers.clear();
    for (const v of ending) v.ended(reason);
    this.#held = undefined;
    this.#heldRaw = undefined;
    this.#heldAt = undefined;
    this.#wake?.();
  }

  /**
   * The screen as the stream last captured it, when that was at most `maxAgeMs` ago (the
   * recording takes its frames from here while someone watches: one capture for both).
   */
  latest(maxAgeMs: number): RegionPixels | undefined {
    const held = this.#held, at = this.#heldAt;
    if (!held || !at || Date.now() - at.at > maxAgeMs) return undefined;
    return { data: held.data, width: held.width, height: held.height, channels: held.channels as 1 | 3 | 4, region: at.region, screen: at.screen };
  }

  stats(): StreamStats {
    return { viewers: this.#viewers.size, capturing: this.#loop !== undefined, captures: this.#captures, frames_sent: this.#sent };
  }

  async #run(): Promise<void> {
    while (this.#viewers.size > 0 && !this.#closed) {
      const started = Date.now();
      let pause = Date.now() < this.#burstUntil ? BURST_MS : FRAME_MS;
      try {
        const raw = await this.#capture();
        this.#captures++;
        if (raw && this.#viewers.size > 0 && !this.#closed) await this.#frame(raw);
      } catch (err) {
        log('debug', 'live stream: a capture failed; trying again', { error: (err as Error).message });
        pause = RETRY_MS;
      }
      const wait = pause - (Date.now() - started);
      if (wait > 0 && this.#viewers.size > 0 && !this.#closed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.#wake = () => { clearTimeout(timer); resolve(); };
        });
        this.#wake = undefined;
      }
    }
  }

  async #frame(raw: RawScreen): Promise<void> {
    const behind = [...this.#viewers.values()].some((s) => s.whole);
    // The screen as the viewers hold it (a memcmp, no decode): nothing to send.
    if (!behind && this.#heldRaw?.equals(raw.data)) {
      if (this.#heldAt) this.#heldAt.at = Date.now();
      return;
    }
    const maxWidth = Math.max(...[...this.#viewers.keys()].map((v) => v.maxWidth));
    const px = await scaled(await decodeRegion(raw), Math.max(maxWidth, NATIVE_UP_TO));
    const changed = changedBox(this.#held, px);
    const whole: Region = { x: 0, y: 0, width: px.width, height: px.height };
    let rect: Buffer | undefined;
    let full: Buffer | undefined;
    for (const [viewer, state] of this.#viewers) {
      if (viewer.queued() > MAX_QUEUED) {
        state.whole = true;
        continue;
      }
      const box = state.whole ? whole : changed;
      if (!box) continue;
      const message = box === whole ? (full ??= await this.#encode(px, whole, true)) : (rect ??= await this.#encode(px, box, false));
      viewer.send(message);
      state.whole = false;
      this.#sent++;
    }
    this.#held = baselineOf(px, this.#held);
    this.#heldAt = { region: px.region, screen: px.screen, at: Date.now() };
    // A copy: adapters reuse their capture buffers.
    if (this.#heldRaw?.length === raw.data.length) raw.data.copy(this.#heldRaw);
    else this.#heldRaw = Buffer.from(raw.data);
  }

  async #encode(px: RegionPixels, box: Region, whole: boolean): Promise<Buffer> {
    // RGB(A) rectangles are cut here (rows copied, no image library): the encoder reads only them.
    const rect = !whole && px.channels !== 1 ? await decodeRegion({ data: px.data, format: px.channels === 4 ? 'rgba' : 'rgb', width: px.width, height: px.height }, box) : undefined;
    const from = rect ?? px;
    let img = await sharp(from.data, { raw: { width: from.width, height: from.height, channels: from.channels } });
    if (!whole && !rect) img = img.extract({ left: box.x, top: box.y, width: box.width, height: box.height });
    const jpeg = await img.jpeg({ quality: JPEG_QUALITY, chromaSubsampling: '4:4:4' }).toBuffer();
    const head = Buffer.alloc(STREAM_HEADER);
    head.writeUInt8(VERSION, 0);
    head.writeUInt8(whole ? FLAG_WHOLE : 0, 1);
    head.writeUInt32LE(++this.#seq, 4);
    head.writeUInt16LE(px.width, 8);
    head.writeUInt16LE(px.height, 10);
    head.writeUInt16LE(px.screen.width, 12);
    head.writeUInt16LE(px.screen.height, 14);
    head.writeUInt16LE(box.x, 16);
    head.writeUInt16LE(box.y, 18);
    head.writeUInt16LE(box.width, 20);
    head.writeUInt16LE(box.height, 22);
    return Buffer.concat([head, jpeg]);
  }
}

/** The frame at most `maxWidth` wide (the screen's own pixels when it fits). */
async function scaled(px: RegionPixels, maxWidth: number): Promise<RegionPixels> {
  if (px.width <= maxWidth) return px;
  const width = Math.max(16, Math.floor(maxWidth));
  const height = Math.max(1, Math.round((px.height * width) / px.width));
  const { data, info } = await (await sharp(px.data, { raw: { width: px.width, height: px.height, channels: px.channels } }))
    .resize(width, height, { kernel: 'linear' }).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels as 1 | 3 | 4, region: px.region, screen: px.screen };
}
