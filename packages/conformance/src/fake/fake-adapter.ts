/**
 * The fake adapter: declares every capability and serves them on the fake desktop, whose state
 * it reaches only through ctx.channel() (see fake-desktop.ts). Files, exec and clone go through
 * the same channel. Used by the server's tests and as the conformance kit's reference plugin.
 * Its sessions keep nothing but a counter of live sessions in this process (fakeSessions()), so
 * tests can see that every session the server opened was disposed.
 */
import { posix } from 'node:path';
import { CAPABILITIES, CAPABILITY_METHOD, defineAdapter, Type, VmhubError, type AdapterContext, type AdapterSession, type Capability, type ElementNode, type LeaseContext } from '@vmhub/core';
import { findWindow, PALETTE, raise, TITLE_BAR, toInfo, viewDesktop, windowAt, withDesktop, type FakeWindow } from './fake-desktop.ts';
import { parseKeys } from './fake-keys.ts';
import { FakeAdapterOptionsSchema, type FakeAdapterOptions } from './fake-options.ts';
import { renderDesktop } from './fake-screenshot.ts';
import { VERSION } from './fake-provider.ts';

const SOURCE = 'adapter-fake';

function inspectTree(win: FakeWindow, focused: boolean, depth: number): ElementNode {
  const node: ElementNode = { role: 'window', name: win.title, x: win.x, y: win.y, width: win.width, height: win.height, states: focused ? ['focused'] : [] };
  if (depth > 1) node.children = [{ role: 'text', name: win.text, x: win.x, y: win.y + TITLE_BAR, width: win.width, height: win.height - TITLE_BAR }];
  return node;
}

let live = 0;
let opened = 0;

/** Fake adapter sessions opened and still open in this process (leak tests). */
export function fakeSessions(): { opened: number; open: number } {
  return { opened, open: live };
}

function openSession(options: FakeAdapterOptions, lease: LeaseContext): AdapterSession {
  const m = desktopMethods();
  opened++;
  live++;
  let disposed = false;
  // Like a real adapter, the end of the session lets go of the keys vm_key {action: "down"}
  // holds (before core closes the channel); best effort, bounded, never throws.
  m.dispose = async () => {
    if (disposed) return;
    disposed = true;
    live--;
    if (!holding) return;
    await withDesktop({ ...lease, signal: AbortSignal.timeout(3000) }, (s) => { s.held = []; }).catch(() => undefined);
  };
  // Only a session that held keys opens the channel at its end.
  let holding = false;
  const hold = m.keyHold!;
  m.keyHold = async (ctx, input) => { if (input.action === 'down') holding = true; await hold(ctx, input); };
  const missing = Object.entries(options.missing ?? {}) as [Capability, string][];
  for (const [cap, reason] of missing) {
    (m as Record<string, unknown>)[CAPABILITY_METHOD[cap]] = async () => {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${cap} is unavailable on this machine: ${reason}`, { source: SOURCE });
    };
  }
  m.probe = async () => Object.fromEntries(missing);
  // Told of a restore (or nothing to drop: the fake keeps no connection): it leaves a mark in the
  // guest, through a channel opened after the restore, so a test sees it ran before the next call.
  let restores = 0;
  m.restored = async (ctx) => {
    await (await ctx.channel()).putFile(RESTORED_MARK, Buffer.from(`${++restores}\n`));
  };
  return m;
}

/** Where the fake adapter's session marks each restore it was told of (its count in this session). */
export const RESTORED_MARK = '/tmp/.vmhub-restored';

function desktopMethods(): AdapterSession {
  return {
    async screenshot(ctx) {
      // As a real adapter: a call whose signal has aborted (its deadline, the session's end) fails.
      ctx.signal.throwIfAborted();
      return renderDesktop(await viewDesktop(ctx));
    },
    async screenSize(ctx) {
      return (await viewDesktop(ctx)).screen;
    },
    async inspect(ctx, input) {
      const s = await viewDesktop(ctx);
      const tree: ElementNode = { role: 'desktop', name: 'fake', x: 0, y: 0, width: s.screen.width, height: s.screen.height };
      if (input.max_depth > 1) tree.children = s.windows.map((w) => inspectTree(w, s.focused === w.id, input.max_depth - 1));
      return { source: 'fake-desktop', tree };
    },
    async listWindows(ctx) {
      const s = await viewDesktop(ctx);
      return s.windows.map((w) => toInfo(s, w));
    },
    async focus(ctx, input) {
      return withDesktop(ctx, (s) => { const w = findWindow(s, input.window); raise(s, w); return toInfo(s, w); });
    },
    async close(ctx, input) {
      return withDesktop(ctx, (s) => {
        const w = findWindow(s, input.window);
        s.windows = s.windows.filter((x) => x !== w);
        if (s.focused === w.id) s.focused = s.windows.at(-1)?.id ?? null;
        return { window_id: w.id };
      });
    },
    async launch(ctx, input) {
      return withDesktop(ctx, (s) => {
        const n = s.next++;
        const name = posix.basename(input.app);
        const offset = (n % 8) * 30;
        const w: FakeWindow = {
          id: `w${n}`, title: [name, ...input.args].join(' '), class: name, x: 80 + offset, y: 60 + offset, width: 420, height: 300,
          visible: true, color: PALETTE[(n - 1) % PALETTE.length]!, text: '', pid: 1000 + n,
        };
        s.windows.push(w);
        s.focused = w.id;
        return { pid: w.pid, window: toInfo(s, w) };
      });
    },
    async click(ctx, input) {
      await withDesktop(ctx, (s) => {
        s.pointer = { x: input.x, y: input.y };
        const w = windowAt(s, input.x, input.y);
        if (w) raise(s, w);
        s.clicks.push({ x: input.x, y: input.y, button: input.button, count: input.count, window: w?.id ?? null });
      });
    },
    async type(ctx, input) {
      await withDesktop(ctx, (s) => {
        s.typed += input.text;
        const w = s.windows.find((x) => x.id === s.focused);
        if (w) w.text += input.text;
      });
    },
    async key(ctx, input) {
      const chords = parseKeys(input.keys);
      await withDesktop(ctx, (s) => { s.keys.push(...chords.map((c) => c.join('+'))); });
    },
    async keyHold(ctx, input) {
      // Held keys live in the desktop's state, like the keyboard of a real machine; "down"/"up"
      // go to the key log as "down:<chord>" / "up:<chord>".
      const chords = parseKeys(input.keys).map((c) => c.join('+'));
      await withDesktop(ctx, (s) => {
        const held = new Set(s.held ?? []);
        for (const c of chords) input.action === 'down' ? held.add(c) : held.delete(c);
        s.held = [...held];
        s.keys.push(...chords.map((c) => `${input.action}:${c}`));
      });
    },
    async releaseHeld(ctx) {
      await withDesktop(ctx, (s) => { s.held = []; });
    },
    async getClipboard(ctx) {
      return { text: (await viewDesktop(ctx)).clipboard };
    },
    async paste(ctx, input) {
      await withDesktop(ctx, (s) => {
        // Like a real paste: set the clipboard, press ctrl+v, then put the old clipboard back.
        const previous = s.clipboard;
        s.clipboard = input.text;
        s.keys.push('ctrl+v');
        s.typed += s.clipboard;
        const w = s.windows.find((x) => x.id === s.focused);
        if (w) w.text += s.clipboard;
        s.clipboard = previous;
      });
    },
    async drag(ctx, input) {
      await withDesktop(ctx, (s) => {
        const w = windowAt(s, input.from.x, input.from.y);
        if (w) {
          raise(s, w);
          if (input.from.y < w.y + TITLE_BAR) { w.x += input.to.x - input.from.x; w.y += input.to.y - input.from.y; }
        }
        s.pointer = { ...input.to };
        s.drags.push({ from: input.from, to: input.to, window: w?.id ?? null });
      });
    },
    async scroll(ctx, input) {
      await withDesktop(ctx, (s) => {
        s.pointer = { x: input.x, y: input.y };
        s.scrolls.push({ x: input.x, y: input.y, direction: input.direction, amount: input.amount });
      });
    },
    async putFile(ctx, input) {
      await (await ctx.channel()).putFile(input.path, input.data, input.mode !== undefined ? { mode: input.mode } : {});
    },
    async getFile(ctx, input) {
      return (await ctx.channel()).getFile(input.path, { maxBytes: input.max_bytes });
    },
    async cloneRepo(ctx, input) {
      const channel = await ctx.channel();
      if (!channel.putArchive) throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] the channel cannot unpack archives`, { source: SOURCE });
      await channel.putArchive(input.dest, input.archive);
    },
    async exec(ctx, input) {
      const channel = await ctx.channel();
      return channel.exec(input.argv, { timeoutMs: input.timeout_ms, maxOutputBytes: input.max_output_bytes, signal: ctx.signal, ...(input.cwd ? { cwd: input.cwd } : {}), ...(input.stdin !== undefined ? { stdin: input.stdin } : {}) });
    },
  };
}

export const fakeAdapter = defineAdapter<FakeAdapterOptions>({
  id: 'fake',
  version: VERSION,
  contractVersion: 2,
  capabilities: CAPABILITIES,
  options: FakeAdapterOptionsSchema,
  verbs: {
    echo: {
      description: 'Return {value} unchanged.',
      args: Type.Object({ value: Type.String({ maxLength: 4096 }) }, { additionalProperties: false }),
      run: async (_ctx: AdapterContext, args) => ({ value: args.value }),
    },
    desktop_state: {
      description: 'The whole fake desktop state (windows, clipboard, typed text, input logs).',
      args: Type.Object({}, { additionalProperties: false }),
      run: async (ctx: AdapterContext) => viewDesktop(ctx),
    },
  },
  create: (options) => ({ open: (lease) => openSession(options, lease) }),
});

/** Named factory (no I/O). */
export function createFakeAdapter(options: Partial<FakeAdapterOptions> = {}) {
  return fakeAdapter.create(options);
}
