/**
 * Screenshots through the shared framebuffer: the host half of the kept capture helper
 * (capture-py.ts has the guest half and the protocol). Where the provider shares a directory
 * with the vmhub host (provider-docker: $VMHUB_FBDIR, on a host tmpfs), one guest command per
 * session starts the helper there, and one line over its unix socket (reached through the
 * shared directory, not the guest's channel) asks it to keep the output's frame in the shared
 * file: the compositor copies into it at every commit that changed the output. A screenshot is
 * then a read of that file, as X11's is of Xvfb's (the adapter kit's readStableFrame) — no guest
 * process, no request: taken when two reads agree or one equals the session's last frame (whose
 * RGB is then handed out again, as it was); a screen changing faster than that is asked for once (`c`, which nothing overwrites
 * until the next request) and kept again at the next screenshot.
 *
 * Contract:
 * - sharedFrame() answers undefined whenever this path cannot serve the call, and the caller
 *   captures with grim: no shared directory (another provider, a remote engine), no python3, the
 *   screen is the whole layout of several outputs (grim composes them; the helper captures one
 *   output), a transformed output, a pixel format other than 32-bit RGB, option
 *   screenshot_framebuffer false. The reasons that hold for the session (no directory, a helper
 *   that does not start) are remembered: no guest command per call then. A cancelled call is
 *   cancelled, not sent to grim.
 * - The layout is not read per call: the session keeps the one it has and reads it again when
 *   the helper reports an output change (its GEN, in its answers and in the file's header) or
 *   the frame's size differs from it.
 * - A helper that went away (the machine restored, the compositor restarted) closes the socket:
 *   the next call starts one again. dispose() stops it (`q`).
 */
import { createConnection, type Socket } from 'node:net';
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AdapterContext, RawScreen, ScreenshotOptions } from '@vmhub/core';
import { FrameBuffers, readStableFrame } from '@vmhub/core/adapter-kit';
import { CAPTURE_PY, CAPTURE_SOCKET } from './capture-py.ts';
import type { Layout } from './layout.ts';
import type { HyprRuntime } from './runtime.ts';

/** Reads of a kept file before a frame counts as torn (the screen changing while read). */
const MAX_READS = 4;
/** Seconds the helper lives with no connection (the server gone without a dispose). */
const IDLE_SECONDS = 60;
/** The guest has no shared directory to write into. */
const NO_DIR = 75;
const START_SCRIPT = `
d="\${VMHUB_FBDIR:-}/screen"
[ -n "\${VMHUB_FBDIR:-}" ] && [ -d "$d" ] && [ -w "$d" ] || exit ${NO_DIR}
exec python3 -S -c "$1" "$d" "$2"
`;

/** One connection to a helper: one line request at a time (the caller orders them), one line answer. */
export class CaptureClient {
  readonly #sock: Socket;
  #buf = '';
  readonly #waiting: Array<(line: string | undefined) => void> = [];
  closed = false;

  private constructor(sock: Socket) {
    this.#sock = sock;
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => {
      this.#buf += d;
      for (let i = this.#buf.indexOf('\n'); i >= 0; i = this.#buf.indexOf('\n')) {
        const line = this.#buf.slice(0, i);
        this.#buf = this.#buf.slice(i + 1);
        this.#waiting.shift()?.(line);
      }
    });
    sock.on('close', () => {
      this.closed = true;
      for (const w of this.#waiting.splice(0)) w(undefined);
    });
    sock.on('error', () => undefined);
  }

  static connect(path: string): Promise<CaptureClient | undefined> {
    return new Promise((resolve) => {
      const sock = createConnection(path);
      sock.once('connect', () => resolve(new CaptureClient(sock)));
      sock.once('error', () => resolve(undefined));
    });
  }

  /** The answer; undefined when the helper is gone or took longer than timeoutMs (the connection is then closed). */
  request(line: string, timeoutMs: number): Promise<string | undefined> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(undefined);
      const timer = setTimeout(() => { this.close(); resolve(undefined); }, timeoutMs);
      this.#waiting.push((answer) => { clearTimeout(timer); resolve(answer); });
      this.#sock.write(`${line}\n`);
    });
  }

  /** Stop the helper (it exits at `q`) and close. */
  quit(): void {
    if (!this.closed) this.#sock.end('q\n');
    this.closed = true;
  }

  close(): void {
    this.closed = true;
    this.#sock.destroy();
  }
}

/** What a session knows of its capture helper (HyprRuntime.capture). */
export interface CaptureState {
  client?: CaptureClient;
  /** The shared frame file on this host. */
  path?: string;
  /** Why this session captures with grim for good. */
  off?: string;
  /** The helper's GEN the session's layout was read at. */
  gen?: number;
  /** The output whose frame the helper keeps in the file (`w` answered `watch`), with that answer. */
  kept?: { target: string; reply: Reply };
  /**
   * The read buffers (4 MB each at 1280×800) and the last frame they hold: rows identical to it
   * give back its RGB as it was — no conversion, no new 3 MB buffer (callers treat screenshot
   * data as read-only). Dropped when unused for a while (the adapter kit's FrameBuffers).
   */
  frames?: FrameBuffers;
  /**
   * Captures one at a time: the compositor writes the file at each `c`, so a frame is read
   * before the next `c` is sent.
   */
  queue?: Promise<unknown>;
}

/** The output the helper captures for this layout, or undefined (several outputs: grim composes them). */
function targetOf(layout: Layout): string | undefined {
  return layout.output ?? (layout.outputs.length === 1 ? layout.outputs[0]!.name : undefined);
}

async function connected(rt: HyprRuntime, ctx: AdapterContext): Promise<CaptureState | undefined> {
  const st = rt.capture;
  if (st.off !== undefined || !ctx.framebuffer || !rt.options.screenshot_framebuffer) return undefined;
  if (st.client && !st.client.closed) return st;
  const guest = await rt.guest(ctx);
  let res;
  try {
    res = await guest.sh(START_SCRIPT, [CAPTURE_PY, String(IDLE_SECONDS)], { okCodes: [0, NO_DIR, 71, 127], label: 'screen capture helper' });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    st.off = `the capture helper did not start: ${(err as Error).message}`;
    return undefined;
  }
  if (res.exit_code !== 0) {
    st.off = res.exit_code === NO_DIR ? 'the machine has no shared screen directory' : `the capture helper did not start (${res.stderr.toString('utf8').trim().slice(0, 200)})`;
    return undefined;
  }
  const fb = await ctx.framebuffer();
  // A socket itself, never a link the guest planted in the shared directory to one of the host's.
  const sock = fb && join(dirname(fb.path), CAPTURE_SOCKET);
  const client = sock && (await lstat(sock).catch(() => undefined))?.isSocket() ? await CaptureClient.connect(sock) : undefined;
  if (!fb || !client) {
    st.off = 'the shared screen directory is not on this host';
    return undefined;
  }
  Object.assign(st, { client, path: fb.path, gen: undefined });
  return st;
}

interface Reply { width: number; height: number; stride: number; format: number; offset: number; flags: number; gen: number; watch: boolean }

function parseReply(line: string | undefined): Reply | undefined {
  const f = line?.split(' ');
  if (f?.[0] !== 'ok' || f.length !== 9) return undefined;
  const [width, height, stride, format, offset, flags, gen] = f.slice(1, 8).map(Number) as [number, number, number, number, number, number, number];
  return { width, height, stride, format, offset, flags, gen, watch: f[8] === 'watch' };
}

/** wl_shm formats: ARGB/XRGB8888 are B,G,R,x in memory; ABGR/XBGR8888 (fourcc AB24/XB24) R,G,B,x. */
const RED_AT: Readonly<Record<number, number>> = { 0: 2, 1: 2, 0x34324241: 0, 0x34324258: 0 };

/** 32-bit rows → packed RGB (rows bottom-up when y-inverted). */
export function rowsToRgb(rows: Buffer, r: Pick<Reply, 'width' | 'height' | 'stride' | 'format' | 'flags'>): Buffer {
  const red = RED_AT[r.format]!, blue = 2 - red;
  const out = Buffer.allocUnsafe(r.width * r.height * 3);
  const flip = (r.flags & 1) === 1;
  let o = 0;
  for (let y = 0; y < r.height; y++) {
    const row = (flip ? r.height - 1 - y : y) * r.stride;
    for (let p = row, end = row + r.width * 4; p < end; p += 4) {
      out[o] = rows[p + red]!;
      out[o + 1] = rows[p + 1]!;
      out[o + 2] = rows[p + blue]!;
      o += 3;
    }
  }
  return out;
}

/**
 * The screen from the shared framebuffer, or undefined (the caller uses grim). Sets the
 * session's layout screen size to the frame's, as grim's path does.
 */
export async function sharedFrame(rt: HyprRuntime, ctx: AdapterContext, options: ScreenshotOptions = {}): Promise<RawScreen | undefined> {
  const st = await connected(rt, ctx);
  if (!st) return undefined;
  const run = () => capture(rt, ctx, st, options.live === true);
  const next = (st.queue ?? Promise.resolve()).then(run, run);
  st.queue = next;
  return next;
}

/** `live`: a frame of the live view's stream (ScreenshotOptions.live): one read of the kept file, torn or not. */
async function capture(rt: HyprRuntime, ctx: AdapterContext, st: CaptureState, live: boolean): Promise<RawScreen | undefined> {
  const client = st.client;
  if (!client || !st.path) return undefined;
  let layout = await rt.layout(ctx);
  let verb = 'w';
  const kept = st.kept;
  // The kept file: no request. Its GEN (in the header) is the layout's, or the output changed.
  if (kept && kept.target === targetOf(layout)) {
    const shot = await readFrame(st, kept.reply, live ? 1 : MAX_READS);
    if (shot) return shot;
    // Torn (the screen changing while read), replaced, or an output changed: a copy that nothing
    // overwrites, with the helper's GEN in its answer.
    verb = 'c';
  }
  st.kept = undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const target = targetOf(layout);
    if (target === undefined) return undefined;
    const reply = parseReply(await client.request(`${verb} ${target}`, rt.options.command_timeout_ms));
    if (!reply || RED_AT[reply.format] === undefined || reply.stride < reply.width * 4) return undefined;
    if (reply.gen !== st.gen || layout.screen.width !== reply.width || layout.screen.height !== reply.height) {
      // An output changed since the layout was read (or this is the helper's first frame): read
      // it again and capture once more if what the screen is changed with it.
      layout = await rt.refreshLayout(ctx);
      st.gen = reply.gen;
      if (targetOf(layout) !== target) continue;
    }
    layout.screen = { width: reply.width, height: reply.height };
    if (reply.watch && verb === 'w') st.kept = { target, reply };
    const shot = await readFrame(st, reply, st.kept ? MAX_READS : 1);
    if (shot || verb === 'c') return shot;
    st.kept = undefined;
    verb = 'c';
  }
  return undefined;
}

/**
 * The frame in the file as `reply` describes it, or undefined: the file has another size, its
 * GEN is not the layout's, or no two of `reads` reads agreed (1: the first read is taken — the
 * file after `c`, which nothing writes, or a live frame). The adapter kit's readStableFrame, as
 * X11's framebuffer: the session's FrameBuffers, a read equal to the last frame is that frame.
 */
function readFrame(st: CaptureState, reply: Reply, reads: number): Promise<RawScreen | undefined> {
  st.frames ??= new FrameBuffers();
  return readStableFrame(st.path!, (dump): RawScreen => ({ data: rowsToRgb(dump.subarray(reply.offset), reply), format: 'rgb', width: reply.width, height: reply.height }), st.frames, {
    reads,
    bytes: reply.offset + reply.stride * reply.height,
    // The helper's GEN in the header (XWD window_bdrwidth): it moved since the layout was read.
    accept: (dump) => dump.readUInt32BE(96) === st.gen,
    key: `${reply.width} ${reply.height} ${reply.stride} ${reply.format} ${reply.flags} ${reply.offset}`,
  });
}

/** End of the session: stop the helper (best effort; it also ends when idle). */
export function stopCapture(rt: HyprRuntime): void {
  rt.capture.client?.quit();
  rt.capture.frames?.release();
  rt.capture = {};
}
