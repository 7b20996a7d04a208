/**
 * Screenshots through the shared framebuffer: the host half of the kept capture helper
 * (capture-py.ts has the guest half and the protocol). Where the provider shares a directory
 * with the vmhub host (provider-docker: $VMHUB_FBDIR, on a host tmpfs), one guest command per
 * session starts the helper there; from then on a screenshot is a line over the helper's unix
 * socket (reached through the shared directory, not through the guest's channel) and a read of
 * the frame the compositor copied into the shared file — no guest process per capture.
 *
 * Contract:
 * - sharedFrame() answers undefined whenever this path cannot serve the call, and the caller
 *   captures with grim: no shared directory (another provider, a remote engine), no python3, the
 *   screen is the whole layout of several outputs (grim composes them; the helper captures one
 *   output), a transformed output, a pixel format other than 32-bit RGB. The reasons that hold
 *   for the session (no directory, a helper that does not start) are remembered: no guest
 *   command per call then. A cancelled call is cancelled, not sent to grim.
 * - The layout is not read per call: the session keeps the one it has and reads it again when
 *   the helper reports an output change (its GEN) or the frame's size differs from it.
 * - A helper that went away (the machine restored, the compositor restarted) closes the socket:
 *   the next call starts one again. dispose() stops it (`q`).
 */
import { createConnection, type Socket } from 'node:net';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AdapterContext, RawScreen } from '@vmhub/core';
import { CAPTURE_PY, CAPTURE_SOCKET } from './capture-py.ts';
import type { Layout } from './layout.ts';
import type { HyprRuntime } from './runtime.ts';

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
  /** The rows of the latest frame (reused: 4 MB at 1280×800). */
  rows?: Buffer;
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
  if (st.off !== undefined || !ctx.framebuffer) return undefined;
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
  const client = fb ? await CaptureClient.connect(join(dirname(fb.path), CAPTURE_SOCKET)) : undefined;
  if (!fb || !client) {
    st.off = 'the shared screen directory is not on this host';
    return undefined;
  }
  Object.assign(st, { client, path: fb.path, gen: undefined });
  return st;
}

interface Reply { width: number; height: number; stride: number; format: number; offset: number; flags: number; gen: number }

function parseReply(line: string | undefined): Reply | undefined {
  const f = line?.split(' ');
  if (f?.[0] !== 'ok' || f.length !== 8) return undefined;
  const [width, height, stride, format, offset, flags, gen] = f.slice(1).map(Number) as [number, number, number, number, number, number, number];
  return { width, height, stride, format, offset, flags, gen };
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
export async function sharedFrame(rt: HyprRuntime, ctx: AdapterContext): Promise<RawScreen | undefined> {
  const st = await connected(rt, ctx);
  if (!st) return undefined;
  const run = () => capture(rt, ctx, st);
  const next = (st.queue ?? Promise.resolve()).then(run, run);
  st.queue = next;
  return next;
}

async function capture(rt: HyprRuntime, ctx: AdapterContext, st: CaptureState): Promise<RawScreen | undefined> {
  if (!st.client || !st.path) return undefined;
  let layout = await rt.layout(ctx);
  for (let attempt = 0; attempt < 2; attempt++) {
    const target = targetOf(layout);
    if (target === undefined) return undefined;
    const reply = parseReply(await st.client.request(`c ${target}`, rt.options.command_timeout_ms));
    if (!reply || RED_AT[reply.format] === undefined || reply.stride < reply.width * 4) return undefined;
    const size = { width: reply.width, height: reply.height };
    if (reply.gen !== st.gen || layout.screen.width !== size.width || layout.screen.height !== size.height) {
      // An output changed since the layout was read (or this is the helper's first frame): read
      // it again and capture once more if what the screen is changed with it.
      layout = await rt.refreshLayout(ctx);
      st.gen = reply.gen;
      if (targetOf(layout) !== target) continue;
    }
    const rows = st.rows?.length === reply.stride * reply.height ? st.rows : (st.rows = Buffer.allocUnsafe(reply.stride * reply.height));
    const file = await open(st.path, 'r').catch(() => undefined);
    if (!file) return undefined;
    try {
      if ((await file.read(rows, 0, rows.length, reply.offset)).bytesRead !== rows.length) return undefined;
    } finally {
      await file.close();
    }
    layout.screen = size;
    return { data: rowsToRgb(rows, reply), format: 'rgb', ...size };
  }
  return undefined;
}

/** End of the session: stop the helper (best effort; it also ends when idle). */
export function stopCapture(rt: HyprRuntime): void {
  rt.capture.client?.quit();
  rt.capture = {};
}
