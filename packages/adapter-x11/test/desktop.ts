/**
 * Shared fixture for the integration suites: a real X session, the host channel, an adapter
 * instance bound to that display with one lease session open on it, and helpers that wait
 * (bounded) for effects.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type Adapter, type AdapterContext, type LeaseContext, type OpenSession, type WindowInfo } from '@vmhub/core';
import { until } from '@vmhub/test-kit';
import { createHostChannel, type HostChannel } from '@vmhub/test-kit/host-channel';
import { createX11Adapter, type X11OptionsInput } from '../src/index.ts';
import { callContext, leaseContext } from './context.ts';
import { startXSession, type XSession } from './x-session.ts';

export interface Desktop {
  x: XSession;
  channel: HostChannel;
  adapter: Adapter;
  /** The suite's lease, and the session `adapter.open(lease)` made for it. */
  lease: LeaseContext;
  session: OpenSession;
  /** A call on that lease; its deadline is the suite's, not one call's. */
  ctx: AdapterContext;
  /** A session of another adapter instance (made with `options`) on the same lease; disposed by stop(). */
  open(options: X11OptionsInput): Promise<OpenSession>;
  /** Open an xterm titled `title` running `sh -c script`; resolves once its window is focused. */
  term(title: string, script: string): Promise<WindowInfo>;
  window(title: string, ms?: number): Promise<WindowInfo>;
  stop(): Promise<void>;
}

/** A value once it has stopped changing for `quietMs` (bounded by `ms`). */
export async function settled<T>(read: () => Promise<T> | T, quietMs = 500, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await read();
  let since = Date.now();
  for (;;) {
    await sleep(50);
    const now = await read();
    if (now !== last) { last = now; since = Date.now(); }
    if (Date.now() - since >= quietMs) return last;
    if (Date.now() > deadline) throw new Error(`still changing after ${ms} ms (last ${String(last)})`);
  }
}

/** The text of `path` once it exists. Writers must rename the file into place (never write it in situ). */
export async function fileText(path: string, ms = 30_000): Promise<string> {
  return (await until(() => (existsSync(path) ? { text: readFileSync(path, 'utf8') } : undefined), `file ${path}`, ms, 50)).text;
}

export async function startDesktop(options: { withArchive?: boolean } = {}): Promise<Desktop> {
  const x = await startXSession();
  const channel = createHostChannel({ home: x.home, env: { HOME: x.home }, withArchive: options.withArchive });
  const adapter = createX11Adapter({ display: x.display });
  const lease = leaseContext(channel, { display: x.display });
  const session = await adapter.open(lease);
  const others: OpenSession[] = [];
  // One context serves the whole suite: its deadline is the suite's, not one call's.
  const ctx = callContext(lease, 10 * 60_000);
  const window = (title: string, ms = 30_000) => until(async () => (await session.listWindows!(ctx)).find((w) => w.title === title), `window "${title}"`, ms, 100);
  return {
    x, channel, adapter, lease, session, ctx, window,
    async open(options) {
      const other = await createX11Adapter(options).open(lease);
      others.push(other);
      return other;
    },
    async term(title, script) {
      x.spawnX(['xterm', '-T', title, '-geometry', '80x10+40+40', '-e', 'sh', '-c', script]);
      // Look the window up again on each try: under load xterm can be listed before its final
      // window is (focus on the first id then answers NOT_FOUND), so NOT_FOUND means "not yet".
      return until(async () => {
        const w = (await session.listWindows!(ctx)).find((v) => v.title === title && v.visible);
        if (!w) return undefined;
        try {
          const f = await session.focus!(ctx, { window: w.id });
          return f.focused ? f : undefined;
        } catch (err) {
          if (VmhubError.is(err) && err.code === 'NOT_FOUND') return undefined;
          throw err;
        }
      }, `"${title}" mapped and focused`, 30_000, 100);
    },
    async stop() {
      for (const s of [session, ...others]) await s.dispose();
      await x.stop();
    },
  };
}
