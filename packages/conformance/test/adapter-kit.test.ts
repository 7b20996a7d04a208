// A desktop adapter written on @vmhub/core/adapter-kit — a per-lease runtime and plain capability
// functions, nothing else — passes the conformance suite on the fake desktop. The session, the
// input queue, the facts memo, the guest runner and the options merge are the kit's.
import { Type, type AdapterContext } from '@vmhub/core';
import { adapterErrors, defineAdapter, Facts, openGuest, type Guest } from '@vmhub/core/adapter-kit';
import { runAdapterConformance } from '../src/index.ts';
import { fakeTarget } from '../src/fake/index.ts';
import { viewDesktop, windowAt, raise, withDesktop } from '../src/fake/fake-desktop.ts';
import { parseKeys } from '../src/fake/fake-keys.ts';
import { renderDesktop } from '../src/fake/fake-screenshot.ts';

const errors = adapterErrors('adapter-kitdesk');

interface Runtime {
  readonly options: { settle_ms: number };
  readonly facts: Facts<{ screen: { width: number; height: number } }>;
  guest(ctx: AdapterContext): Promise<Guest>;
}

const kitDesk = defineAdapter<{ settle_ms: number }, { settle_ms: number }, Runtime>({
  id: 'kitdesk',
  version: '1.0.0',
  contractVersion: 2,
  capabilities: ['screenshot', 'click', 'type', 'key', 'exec', 'put_file', 'get_file'],
  options: Type.Object({ settle_ms: Type.Integer({ default: 0, minimum: 0 }) }, { additionalProperties: false }),
  runtime: (options) => ({
    options,
    facts: new Facts(),
    guest: (ctx) => openGuest(ctx, { errors, missingTool: (tool) => errors.error('CAPABILITY_UNAVAILABLE', `${tool} is missing: add it to the golden`), scriptName: 'vmhub-kitdesk', timeoutMs: 5000, maxOutputBytes: 1 << 20 }),
  }),
  methods: {
    async screenshot(rt, ctx) {
      const desk = await viewDesktop(ctx);
      rt.facts.set('screen', desk.screen);
      return renderDesktop(desk);
    },
    screenSize: (rt, ctx) => rt.facts.remember('screen', async () => (await viewDesktop(ctx)).screen, ctx.signal),
    async click(_rt, ctx, input) {
      await withDesktop(ctx, (s) => {
        s.pointer = { x: input.x, y: input.y };
        const w = windowAt(s, input.x, input.y);
        if (w) raise(s, w);
        s.clicks.push({ x: input.x, y: input.y, button: input.button, count: input.count, window: w?.id ?? null });
      });
    },
    async type(_rt, ctx, input) {
      await withDesktop(ctx, (s) => { s.typed += input.text; });
    },
    async key(_rt, ctx, input) {
      const chords = parseKeys(input.keys);
      await withDesktop(ctx, (s) => { s.keys.push(...chords.map((c) => c.join('+'))); });
    },
    async exec(_rt, ctx, input) {
      return (await ctx.channel()).exec(input.argv, { timeoutMs: input.timeout_ms, maxOutputBytes: input.max_output_bytes, signal: ctx.signal, ...(input.cwd ? { cwd: input.cwd } : {}), ...(input.stdin !== undefined ? { stdin: input.stdin } : {}) });
    },
    // The kit's guest runner: a typed error for a failure, the bytes otherwise.
    putFile: async (rt, ctx, input) => { await (await rt.guest(ctx)).channel.putFile(input.path, input.data, input.mode !== undefined ? { mode: input.mode } : {}); },
    getFile: async (rt, ctx, input) => (await rt.guest(ctx)).channel.getFile(input.path, { maxBytes: input.max_bytes }),
  },
});

runAdapterConformance({ plugin: kitDesk, target: () => fakeTarget() });
