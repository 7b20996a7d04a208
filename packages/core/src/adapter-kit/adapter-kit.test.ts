import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { AdapterContext, LeaseContext } from '../adapter.ts';
import type { ExecOptions, ExecResult, GuestChannel } from '../channel.ts';
import { VmhubError } from '../errors.ts';
import { adapterErrors, defineAdapter, Facts, InputQueue, isCancellation, mergeOptions, openGuest, walkAtspi, wasKilled, type GuestSpec } from './index.ts';

const template = { id: 't', provider: 'p', adapter: 'kit', os: 'linux', golden: 'g' };
function leaseWith(channel?: Partial<GuestChannel>, adapterOptions?: Record<string, unknown>): LeaseContext {
  return {
    lease_id: 'l1', machine: { identity: 'vmhub-t-l1', external_id: 'e' }, template: { ...template, ...(adapterOptions ? { adapter_options: adapterOptions } : {}) },
    channel: async () => channel as GuestChannel, console: async () => { throw new Error('no console'); },
    connect: async () => { throw new Error('no ports'); }, forward: async () => { throw new Error('no ports'); },
  };
}
const ctxOf = (lease: LeaseContext, signal = new AbortController().signal): AdapterContext => ({ ...lease, signal });
const result = (r: Partial<ExecResult>): ExecResult => ({ exit_code: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: false, truncated: false, ...r }) as ExecResult;
const errors = adapterErrors('adapter-kit');
const spec: GuestSpec = { errors, missingTool: (tool) => errors.error('CAPABILITY_UNAVAILABLE', `${tool} not found: add it to the golden image`), scriptName: 'vmhub-kit', timeoutMs: 1000, maxOutputBytes: 1024 };
const tick = () => new Promise((r) => setImmediate(r));

describe('core: adapter kit: the serial input queue', () => {
  it('runs actions one at a time in call order, and a failure does not stop the queue', async () => {
    const q = new InputQueue();
    const seen: string[] = [];
    let release!: () => void;
    const first = q.serial(async () => { seen.push('a start'); await new Promise<void>((r) => { release = r; }); seen.push('a end'); });
    const second = q.serial(async () => { seen.push('b'); throw new Error('b failed'); });
    const third = q.serial(async () => { seen.push('c'); return 3; });
    await tick();
    assert.deepEqual(seen, ['a start']);
    release();
    await first;
    await assert.rejects(second, /b failed/);
    assert.equal(await third, 3);
    assert.deepEqual(seen, ['a start', 'a end', 'b', 'c']);
  });
});

describe('core: adapter kit: memoised facts', () => {
  it('loads once for concurrent calls, forgets a failed load, and forgets on demand', async () => {
    const facts = new Facts<{ size: number }>();
    let loads = 0;
    const load = async () => { loads++; await tick(); return 42; };
    assert.deepEqual(await Promise.all([facts.remember('size', load), facts.remember('size', load)]), [42, 42]);
    assert.equal(loads, 1);
    facts.forget('size');
    await assert.rejects(facts.remember('size', async () => { throw new Error('down'); }), /down/);
    assert.equal(facts.peek('size'), undefined);
    assert.equal(await facts.remember('size', load), 42);
    facts.set('size', 7);
    assert.equal(await facts.peek('size'), 7);
    facts.clear();
    assert.equal(facts.peek('size'), undefined);
  });
  it("loads again when another call's cancellation, not this call's, ended a shared load", async () => {
    const facts = new Facts<{ size: number }>();
    const mine = new AbortController();
    let loads = 0;
    const got = await facts.remember('size', async () => { loads++; if (loads === 1) throw errors.cancelled('size'); return 5; }, mine.signal);
    assert.equal(got, 5);
    assert.equal(loads, 2);
    mine.abort();
    facts.clear();
    await assert.rejects(facts.remember('size', async () => { throw errors.cancelled('size'); }, mine.signal), (e) => isCancellation(e));
  });
});

describe('core: adapter kit: the guest runner', () => {
  const channelWith = (answer: (argv: string[], o: ExecOptions) => ExecResult | Promise<ExecResult>, calls: { argv: string[]; o: ExecOptions }[] = []) =>
    ({ exec: async (argv: string[], o: ExecOptions) => { calls.push({ argv, o }); return answer(argv, o); } }) as Partial<GuestChannel>;

  it('runs argv with the call signal, bounds and env, and sh scripts with positional args', async () => {
    const calls: { argv: string[]; o: ExecOptions }[] = [];
    const lease = leaseWith(channelWith(() => result({ stdout: Buffer.from('ok') }), calls));
    const ac = new AbortController();
    const guest = await openGuest(ctxOf(lease, ac.signal), { ...spec, env: { A: '1' }, user: 'u' });
    assert.equal((await guest.run(['echo', 'hi'])).stdout.toString(), 'ok');
    await guest.sh('echo "$1"', ['x'], { needs: ['tar'] });
    assert.deepEqual(calls[0]!.argv, ['echo', 'hi']);
    assert.equal(calls[0]!.o.signal, ac.signal);
    assert.deepEqual([calls[0]!.o.timeoutMs, calls[0]!.o.maxOutputBytes, calls[0]!.o.user, calls[0]!.o.env], [1000, 1024, 'u', { A: '1' }]);
    assert.equal(calls[1]!.argv[0], 'sh');
    assert.match(calls[1]!.argv[2]!, /command -v "\$t"[\s\S]*echo "\$1"/);
    assert.deepEqual(calls[1]!.argv.slice(3), ['vmhub-kit', 'x']);
  });
  it('maps failures to typed errors: missing tool, timeout, cancelled, exit code, diagnosed', async () => {
    const run = async (r: Partial<ExecResult>, s: Partial<GuestSpec> = {}, signal?: AbortSignal) =>
      (await openGuest(ctxOf(leaseWith(channelWith(() => result(r))), signal), { ...spec, ...s })).run(['xdotool', 'key', 'a']);
    await assert.rejects(run({ exit_code: 127 }), (e: VmhubError) => e.code === 'CAPABILITY_UNAVAILABLE' && /xdotool not found/.test(e.message));
    await assert.rejects(run({ exit_code: 127 }, { missingTool: undefined }), (e: VmhubError) => e.code === 'CAPABILITY_UNAVAILABLE' && e.message === '[vmhub] [adapter-kit] xdotool not found in the guest: add it to the golden image' && (e.details as { tool: string }).tool === 'xdotool');
    await assert.rejects(run({ exit_code: 1, stderr: Buffer.from('sh: 1: xclip: not found') }), /xdotool failed with exit code 1/);
    await assert.rejects(run({ exit_code: 127, stderr: Buffer.from('sh: 1: xclip: not found') }), /xclip not found/);
    await assert.rejects(run({ exit_code: null, timed_out: true }), (e: VmhubError) => e.code === 'TIMEOUT' && /did not finish in time/.test(e.message) && wasKilled(e) && !isCancellation(e));
    // partialOnTimeout: the kill is an answer; what was read comes back.
    const partial = await (await openGuest(ctxOf(leaseWith(channelWith(() => result({ exit_code: null, timed_out: true, stdout: Buffer.from('{"scope":"window"}\n{"i":0,"p":-1,"role":"frame","name":"Rows"}\n{"i":1,"p":0,"ro') })))), spec)).run(['python3', '-'], { partialOnTimeout: true });
    assert.equal(partial.timed_out, true);
    const walked = await walkAtspi(await openGuest(ctxOf(leaseWith(channelWith(() => result({ exit_code: null, timed_out: true, stdout: partial.stdout })))), spec), { max_depth: 50, max_nodes: 500, timeout_ms: 500, scope: 'window' });
    assert.deepEqual([walked.tree.name, walked.scope, walked.truncated], ['Rows', 'window', 'time'], 'a walk killed past its grace answers what it streamed, cut by time');
    const none = await walkAtspi(await openGuest(ctxOf(leaseWith(channelWith(() => result({ exit_code: null, timed_out: true })))), spec), { max_depth: 50, max_nodes: 500, timeout_ms: 500, scope: 'desktop' });
    assert.deepEqual([none.tree.role, none.truncated], ['desktop', 'time'], 'killed before its first element: an empty tree, cut by time');
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(run({}, {}, ac.signal), (e: VmhubError) => e.code === 'TIMEOUT' && /not started/.test(e.message) && isCancellation(e));
    await assert.rejects(run({ exit_code: 2, stderr: Buffer.from('boom') }), (e: VmhubError) => e.code === 'INTERNAL' && e.message === '[vmhub] [adapter-kit] xdotool failed with exit code 2: boom' && e.source === 'adapter-kit');
    await assert.rejects(run({ exit_code: 1, stderr: Buffer.from("can't open display") }, { diagnose: () => errors.error('INTERNAL', 'the display is down') }), /the display is down/);
    assert.equal((await run({ exit_code: 1 }, {}).catch(() => 'threw')), 'threw');
  });
  it('kills a running command when the call is cancelled, and says so as a cancellation', async () => {
    const ac = new AbortController();
    const lease = leaseWith(channelWith((_argv, o) => new Promise((resolve) => o.signal!.addEventListener('abort', () => resolve(result({ exit_code: null, timed_out: true }))))));
    const guest = await openGuest(ctxOf(lease, ac.signal), spec);
    const running = guest.run(['sleep', '10']);
    await tick();
    ac.abort();
    await assert.rejects(running, (e: VmhubError) => e.code === 'TIMEOUT' && isCancellation(e) && wasKilled(e));
  });
});

describe('core: adapter kit: options merge', () => {
  const schema = Type.Object({ delay: Type.Integer({ default: 5, minimum: 0 }), name: Type.Optional(Type.String()) }, { additionalProperties: false });
  it('returns the instance when the template refines nothing, else validates the merge', () => {
    const instance = { delay: 5 };
    assert.equal(mergeOptions(schema, instance, undefined, 'adapter-kit'), instance);
    assert.equal(mergeOptions(schema, instance, {}, 'adapter-kit'), instance);
    assert.deepEqual(mergeOptions(schema, instance, { name: 'x' }, 'adapter-kit'), { delay: 5, name: 'x' });
    assert.throws(() => mergeOptions(schema, instance, { delay: -1 }, 'adapter-kit'), /\[adapter-kit\] options/);
    assert.throws(() => mergeOptions(schema, instance, { nope: 1 }, 'adapter-kit'), VmhubError);
  });
});

describe('core: adapter kit: defineAdapter', () => {
  const schema = Type.Object({ delay: Type.Integer({ default: 5 }) }, { additionalProperties: false });
  const make = (log: string[]) => defineAdapter<{ delay: number }, { delay: number; doubled: number }, { options: { doubled: number }; log: string[]; ended: AbortSignal }>({
    id: 'kit', version: '1.0.0', contractVersion: 2,
    capabilities: ['screenshot', 'type', 'click', 'dispatch'],
    options: schema,
    complete: (o) => ({ ...o, doubled: o.delay * 2 }),
    runtime: (options, _lease, kit) => ({ options, log, ended: kit.ended }),
    verbs: { doubled: { description: 'the doubled delay', args: Type.Object({}), run: async (_ctx, _args, session) => session.runtime.options.doubled } },
    methods: {
      screenshot: async () => ({ data: Buffer.alloc(3), format: 'rgb', width: 1, height: 1 }),
      type: async (rt, ctx, input) => { rt.log.push(`type ${input.text} start`); await new Promise((r) => setTimeout(r, 20)); rt.log.push(`type ${input.text} end ${ctx.signal.aborted}`); },
      click: async (rt, _ctx, input) => { rt.log.push(`click ${input.x}`); },
    },
    aroundInput: async (rt, _ctx, run) => { rt.log.push('around'); await run(); },
    dispose: (rt) => { rt.log.push(`dispose ended=${rt.ended.aborted}`); },
  });

  it('builds a session core accepts: options completed and merged per lease, verbs on the runtime', async () => {
    const adapter = make([]).create({ delay: 3 });
    const session = await adapter.open(leaseWith(undefined, { delay: 10 }));
    assert.equal(await session.dispatch!(ctxOf(leaseWith()), { verb: 'doubled', args: {} }), 20);
    const plain = await adapter.open(leaseWith());
    assert.equal(await plain.dispatch!(ctxOf(leaseWith()), { verb: 'doubled', args: {} }), 6);
    await assert.rejects(adapter.open(leaseWith(undefined, { delay: 'x' })), /options/);
  });
  it('queues input actions one at a time, inside aroundInput, and cancels calls at dispose', async () => {
    const log: string[] = [];
    const session = await make(log).create({}).open(leaseWith());
    const ctx = ctxOf(leaseWith());
    await Promise.all([session.type!(ctx, { text: 'a' }), session.click!(ctx, { x: 1, y: 1, button: 'left', count: 1, modifiers: [] }), session.type!(ctx, { text: 'b' })]);
    assert.deepEqual(log, ['around', 'type a start', 'type a end false', 'around', 'click 1', 'around', 'type b start', 'type b end false']);
    log.length = 0;
    const running = session.type!(ctx, { text: 'c' });
    await tick();
    await session.dispose();
    await running;
    assert.deepEqual(log, ['around', 'type c start', 'dispose ended=true', 'type c end true']);
    await assert.rejects(session.screenshot!(ctx), /has ended/);
  });
  it('hands restored() to the adapter with its runtime and a bound signal; a session without the hook has none', async () => {
    const seen: string[] = [];
    const plugin = defineAdapter<Record<string, never>, Record<string, never>, { n: number }>({
      id: 'kit', version: '1.0.0', contractVersion: 2, runtime: () => ({ n: 0 }),
      methods: { screenshot: async (rt) => ({ data: Buffer.alloc(3), format: 'rgb', width: 1, height: rt.n + 1 }) },
      restored: (rt, ctx) => { rt.n++; seen.push(`restored ${rt.n} aborted=${ctx.signal.aborted}`); },
    });
    const session = await plugin.create().open(leaseWith());
    const ctx = ctxOf(leaseWith());
    await session.restored!(ctx);
    assert.deepEqual(seen, ['restored 1 aborted=false']);
    assert.equal((await session.screenshot!(ctx)).height, 2, 'the capability functions see what restored() changed');
    const without = await make([]).create({}).open(leaseWith());
    assert.equal(without.restored, undefined);
  });
  it('declares what the functions serve when no capabilities are given, in core\'s order', () => {
    const plugin = defineAdapter({ id: 'kit', version: '1.0.0', contractVersion: 2, runtime: () => ({}), methods: { exec: async () => ({ exit_code: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: false, truncated: false }), screenshot: async () => ({ data: Buffer.alloc(3), format: 'rgb', width: 1, height: 1 }) }, verbs: { v: { description: 'v', args: Type.Object({}), run: async () => 1 } } });
    assert.deepEqual(plugin.capabilities, ['screenshot', 'dispatch', 'exec']);
  });
  it('leaves declared-but-missing capabilities to core to refuse', async () => {
    const broken = defineAdapter({ id: 'kit', version: '1.0.0', contractVersion: 2, capabilities: ['exec'], runtime: () => ({}), methods: {} });
    await assert.rejects(broken.create().open(leaseWith()), /declares "exec" but its session does not implement exec\(\)/);
  });
});
