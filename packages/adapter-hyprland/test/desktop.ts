/**
 * Shared fixture for the integration suites: a real headless sway (sway-session.ts), optionally
 * the Hyprland IPC stand-in beside it, the host channel running as the session's user, and one
 * adapter session on it. Sinks are foot terminals whose `cat` writes what they receive to a file,
 * with xterm mouse reporting on (SGR, button-event tracking) so clicks, drags and wheel notches
 * arrive in the file too, with the cell they hit.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdapterContext, LeaseContext, OpenSession, WindowInfo } from '@vmhub/core';
import { createHostChannel, type HostChannel } from '@vmhub/test-kit/host-channel';
import { until } from '@vmhub/test-kit';
import { createHyprlandAdapter, type HyprlandOptionsInput } from '../src/index.ts';
import { callContext, leaseContext } from './context.ts';
import { NOBODY, startSway, type SwaySession } from './sway-session.ts';

export { until };

export const STANDIN = new URL('../../../standins/goldens/hyprland-standin/hyprland-ipc-standin.py', import.meta.url).pathname;

export interface Sink {
  title: string;
  file: string;
  window: WindowInfo;
  text(): string;
  /** Terminal size (rows, cols) now. */
  size(): { rows: number; cols: number };
  /** Mouse reports received: button code, 1-based cell, press (M) or release (m). */
  mouse(): { b: number; col: number; row: number; press: boolean }[];
}

export interface Desktop {
  sway: SwaySession;
  channel: HostChannel;
  lease: LeaseContext;
  session: OpenSession;
  ctx: AdapterContext;
  sink(title: string): Promise<Sink>;
  /** Start one more IPC stand-in (its own signature), returning the signature. */
  standin(version: string, signature: string, extra?: string[]): Promise<string>;
  /** A session of another lease on the same machine, its template's adapter_options `options`. */
  open(options: HyprlandOptionsInput): Promise<OpenSession>;
  /** sway's own record of the view titled `name`. */
  swayView(name: string): { id: number; focused: boolean } | undefined;
  stop(): Promise<void>;
}

// The size is re-read every 100 ms: foot starts at its default geometry and is resized by the
// compositor right after, so a size read once at start would be stale. The loop ends with the
// terminal (stty fails once the pty is gone).
const SINK_SCRIPT = `stty -icanon -echo; printf '\\033[?1000h\\033[?1002h\\033[?1006h'
(while stty size < /dev/tty > "$1.size.part" 2>/dev/null; do mv "$1.size.part" "$1.size"; sleep 0.1; done) &
exec cat > "$1"`;

/**
 * `framebuffer`: share a directory with the "guest" as provider-docker does (VMHUB_FBDIR in
 * every command's env, its `screen/` world-writable, lease.framebuffer() naming the frame file
 * in it), so screenshots take the kept capture helper's path (capture.ts).
 */
export async function startDesktop(options: { hyprland?: string; outputs?: number; adapter?: HyprlandOptionsInput; framebuffer?: boolean } = {}): Promise<Desktop> {
  const sway = await startSway({ outputs: options.outputs });
  const others: OpenSession[] = [];
  try {
    const standin = async (version: string, signature: string, extra: string[] = []) => {
      sway.spawn(['/usr/bin/python3', STANDIN, '--version', version, '--signature', signature, ...extra]);
      await until(() => existsSync(join(sway.runtimeDir, 'hypr', signature, '.socket.sock')), `stand-in ${signature}`, 30_000);
      return signature;
    };
    if (options.hyprland) await standin(options.hyprland, 'vmhub-standin');
    const fbdir = join(sway.dir, 'fb');
    const frame = join(fbdir, 'screen', 'Xvfb_screen0');
    if (options.framebuffer) {
      mkdirSync(join(fbdir, 'screen'), { recursive: true });
      chmodSync(join(fbdir, 'screen'), 0o1777);
    }
    const channel = createHostChannel({ home: sway.home, env: { HOME: sway.home, PATH: '/usr/local/bin:/usr/bin:/bin', ...(options.framebuffer ? { VMHUB_FBDIR: fbdir } : {}) }, uid: NOBODY });
    const adapterOptions = { xdg_runtime_dir: sway.runtimeDir, compositor: options.hyprland ? 'hyprland' : 'sway', ...options.adapter };
    const framebuffer = async () => (existsSync(frame) ? { format: 'xwd' as const, path: frame } : undefined);
    const lease = leaseContext(channel, adapterOptions, options.framebuffer ? { framebuffer } : {});
    const session = await createHyprlandAdapter({}).open(lease);
    const ctx = callContext(lease, 10 * 60_000);
    return {
      sway, channel, lease, session, ctx, standin,
      async sink(title) {
        const file = join(sway.home, `${title}.txt`);
        const r = await session.launch!(ctx, { app: 'foot', args: ['-T', title, 'sh', '-c', SINK_SCRIPT, 'sink', file], wait_seconds: 15 });
        assert.ok(r.window, `no window for sink ${title}`);
        await until(() => existsSync(file) && existsSync(`${file}.size`), `sink ${title} running`, 30_000);
        const text = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
        return {
          title, file, window: r.window, text,
          size() {
            const [rows, cols] = readFileSync(`${file}.size`, 'utf8').trim().split(/\s+/).map(Number);
            return { rows: rows!, cols: cols! };
          },
          mouse() {
            return [...text().matchAll(/\x1b\[<(\d+);(\d+);(\d+)([Mm])/g)].map((m) => ({ b: Number(m[1]), col: Number(m[2]), row: Number(m[3]), press: m[4] === 'M' }));
          },
        };
      },
      swayView(name) {
        const walk = (n: { name?: string; focused?: boolean; id: number; nodes?: unknown[]; floating_nodes?: unknown[]; app_id?: string }): { id: number; focused: boolean } | undefined => {
          if (n.name === name && n.app_id !== undefined) return { id: n.id, focused: n.focused === true };
          for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])]) { const f = walk(c as typeof n); if (f) return f; }
          return undefined;
        };
        return walk(JSON.parse(sway.swaymsg('-t', 'get_tree')));
      },
      async open(o) {
        const s = await createHyprlandAdapter({}).open(leaseContext(channel, { xdg_runtime_dir: sway.runtimeDir, ...o }));
        others.push(s);
        return s;
      },
      async stop() {
        for (const s of [session, ...others]) await s.dispose();
        await sway.stop();
      },
    };
  } catch (err) {
    await sway.stop();
    throw err;
  }
}

/**
 * The 1-based terminal cell foot reports for a screen pixel of a window shown at output scale S:
 * foot renders at the integer buffer scale B = ceil(S) (sway 1.7 has no fractional scaling
 * protocol and scales the buffer by S/B), draws its grid 2 logical px in (2·B buffer px), and
 * gives each cell a whole number of buffer pixels.
 */
export function cellOf(w: WindowInfo, size: { rows: number; cols: number }, p: { x: number; y: number }, scale = 1): { col: number; row: number } {
  const b = Math.ceil(scale), toBuf = b / scale, pad = 2 * b;
  const cw = Math.floor((w.width * toBuf - 2 * pad) / size.cols), ch = Math.floor((w.height * toBuf - 2 * pad) / size.rows);
  return { col: Math.floor(((p.x - w.x) * toBuf - pad) / cw) + 1, row: Math.floor(((p.y - w.y) * toBuf - pad) / ch) + 1 };
}

/** Text of a file once it has stopped growing for `quietMs` and contains `want`. */
export async function textWith(read: () => string, want: string, ms = 30_000): Promise<string> {
  return until(() => { const t = read(); return t.includes(want) ? t : undefined; }, `text containing ${JSON.stringify(want)}`, ms, 50);
}
