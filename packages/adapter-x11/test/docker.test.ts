/**
 * x11 through a REAL container: @vmhub/provider-docker makes a debian-x11 machine and its
 * GuestChannel; the adapter drives it knowing nothing of docker. A smaller suite than the host
 * one: the same effects, checked inside the container, plus latency figures for the benchmark.
 * Needs the golden image (`vmhub-server golden build debian-x11`): without it the suite FAILS
 * with the provider's reason — it never skips silently.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AdapterContext, GuestChannel, MachineRef, OpenSession, Provider } from '@vmhub/core';
import { VmhubError } from '@vmhub/core';
import { shapeScreenshot } from '@vmhub/core/screenshot';
import { debianX11Template as template } from '@vmhub/provider-docker';
import { abortExec, callContext, testLease, until } from '@vmhub/test-kit';
import { createX11Adapter } from '../src/index.ts';
import { recordingChannel, startDebianX11, stopDebianX11 } from './debian-x11.ts';
import { settled } from './desktop.ts';
import { routerOn } from './router.ts';

const instance = `x11t${randomBytes(3).toString('hex')}`;
const lease = randomUUID();
const adapter = createX11Adapter({});
let provider: Provider;
let machine: MachineRef | undefined;
let channel: GuestChannel;
let session: OpenSession;
let ctx: AdapterContext;
const calls: string[][] = [];

const rand = () => randomBytes(4).toString('hex');
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
async function guestText(path: string, ms = 8000): Promise<string> {
  return until(async () => {
    try { return (await session.getFile!(ctx, { path, max_bytes: 1_000_000 })).toString('utf8'); } catch (err) { if (VmhubError.is(err) && err.code === 'NOT_FOUND') return undefined; throw err; }
  }, `${path} in the guest`, ms, 100);
}

describe('x11: through a docker container (provider-docker channel)', { timeout: 300_000 }, () => {
  before(async () => {
    ({ provider, machine, channel } = await startDebianX11(instance, lease));
    const leaseContext = testLease({ lease_id: lease, machine, template, channel: recordingChannel(channel, calls) });
    session = await adapter.open(leaseContext);
    ctx = callContext(leaseContext, 280_000);
  });
  after(async () => {
    await session?.dispose();
    await stopDebianX11({ provider, machine, channel });
  });

  it('probe: everything but inspect works in the golden', async () => {
    const unavailable = await session.probe!(ctx);
    assert.deepEqual(Object.keys(unavailable), ['inspect'], JSON.stringify(unavailable));
    assert.match(unavailable.inspect!, /no AT-SPI stack/);
  });

  it('launch xterm, type Unicode + metacharacters: byte-exact in a guest file, nothing executed', async () => {
    const title = `type-${rand()}`;
    const out = `/tmp/typed-${rand()}.txt`;
    const pwned = `/tmp/pwned-${rand()}`;
    const r = await session.launch!(ctx, { app: 'xterm', args: ['-T', title, '-e', 'sh', '-c', `IFS= read -r line; printf %s "$line" > ${out}.tmp && mv ${out}.tmp ${out}; sleep 30`], wait_seconds: 15 });
    assert.equal(r.window?.title, title);
    assert.ok(r.pid && r.pid > 1);
    await until(async () => ((await session.focus!(ctx, { window: r.window!.id })).focused ? true : undefined), 'focused', 20_000, 100);
    const text = `héllo ✓ Привет 粘贴 '";|&$()\\\` %s $(touch ${pwned})`;
    await session.type!(ctx, { text: `${text}\n` });
    assert.equal(await guestText(out), text);
    assert.ok(calls.some((argv) => argv.includes('map')), 'non-ASCII characters were pre-bound with the Perl keymap client in the golden');
    const check = await session.exec!(ctx, { argv: ['test', '-e', pwned], timeout_ms: 5000, max_output_bytes: 100 });
    assert.equal(check.exit_code, 1, 'the typed $(touch …) must not have run');
  });

  it('key chord and paste into xterm; previous selection restored', async () => {
    const title = `paste-${rand()}`;
    const out = `/tmp/paste-${rand()}.txt`;
    const r = await session.launch!(ctx, { app: 'xterm', args: ['-T', title, '-e', 'sh', '-c', `IFS= read -r line; printf %s "$line" > ${out}.tmp && mv ${out}.tmp ${out}; sleep 30`], wait_seconds: 15 });
    await until(async () => ((await session.focus!(ctx, { window: r.window!.id })).focused ? true : undefined), 'focused', 20_000, 100);
    await session.dispatch!(ctx, { verb: 'set_clipboard', args: { text: 'before ✓', selection: 'primary' } });
    await session.type!(ctx, { text: 'junk' });
    await session.key!(ctx, { keys: 'ctrl+u' });
    await session.paste!(ctx, { text: 'pasted Привет $(id)' });
    await session.key!(ctx, { keys: 'Return' });
    assert.equal(await guestText(out), 'pasted Привет $(id)');
    assert.deepEqual(await session.dispatch!(ctx, { verb: 'get_clipboard', args: { selection: 'primary' } }), { text: 'before ✓', empty: false });
  });

  it('list/focus/drag/close are reflected in the window list', async () => {
    const title = `win-${rand()}`;
    const r = await session.launch!(ctx, { app: 'xterm', args: ['-T', title, '-geometry', '40x6+200+200', '-e', 'sleep', '60'], wait_seconds: 15 });
    const w0 = r.window!;
    assert.equal(w0.class, 'XTerm');
    const f = await session.focus!(ctx, { window: title });
    assert.equal(f.focused, true);
    const from = { x: w0.x + Math.floor(w0.width / 2), y: w0.y - 8 };
    await session.drag!(ctx, { from, to: { x: from.x + 120, y: from.y + 80 }, button: 'left' });
    const w1 = await until(async () => { const w = (await session.listWindows!(ctx)).find((v) => v.id === w0.id); return w && w.x !== w0.x ? w : undefined; }, 'moved', 20_000, 100);
    assert.deepEqual([w1.x - w0.x, w1.y - w0.y], [120, 80]);
    await session.close!(ctx, { window: w0.id });
    await until(async () => ((await session.listWindows!(ctx)).some((w) => w.id === w0.id) ? undefined : true), 'closed', 5000, 100);
  });

  it('a cancelled call stops in the container: long vm_type stops typing, vm_exec is killed', async (t) => {
    const sink = `/tmp/sink-${rand()}.txt`;
    const title = `sink-${rand()}`;
    const r = await session.launch!(ctx, { app: 'xterm', args: ['-T', title, '-e', 'sh', '-c', `stty -icanon -echo; exec cat > ${sink}`], wait_seconds: 15 });
    await until(async () => ((await session.focus!(ctx, { window: r.window!.id })).focused ? true : undefined), 'focused', 20_000, 100);
    const sh = async (script: string) => (await session.exec!(ctx, { argv: ['sh', '-c', script], timeout_ms: 5000, max_output_bytes: 10_000 })).stdout.toString().trim();
    const size = async () => Number(await sh(`stat -c %s ${sink} 2>/dev/null || echo 0`));
    const procs = (name: string) => sh(`for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = ${name} ] && echo \${p#/proc/}; done; true`);
    const ac = new AbortController();
    const call = session.type!({ ...ctx, signal: ac.signal }, { text: 'abcdefghij'.repeat(200) });
    call.catch(() => undefined);
    await until(async () => ((await size()) > 0 ? true : undefined), 'typing started', 10_000, 50);
    await new Promise((res) => setTimeout(res, 700));
    const abortedAt = Date.now();
    ac.abort();
    await assert.rejects(call, (e: VmhubError) => e.code === 'TIMEOUT' && /vm_type stopped/.test(e.message));
    const typeMs = Date.now() - abortedAt;
    assert.ok(typeMs < 3000, `vm_type ended ${typeMs} ms after the abort`);
    assert.equal(await procs('xdotool'), '', 'no xdotool left in the container');
    // Key events the X server already had may still reach a busy xterm: wait until it is quiet.
    const typed = await settled(size);
    assert.ok(typed > 0 && typed < 1000, `${typed} of 2000 characters typed`);
    await new Promise((res) => setTimeout(res, 2000));
    assert.equal(await size(), typed, 'nothing more typed after the cancel');

    const arg = `300.${Number.parseInt(rand(), 16)}`;
    const ex = new AbortController();
    const pending = session.exec!({ ...ctx, signal: ex.signal }, { argv: ['sleep', arg], timeout_ms: 600_000, max_output_bytes: 100 });
    const sleeping = () => sh(`for p in /proc/[0-9]*; do [ "$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)" = "sleep ${arg} " ] && echo \${p#/proc/}; done; true`);
    await until(async () => ((await sleeping()) !== '' ? true : undefined), 'sleep running', 20_000, 100);
    await new Promise((res) => setTimeout(res, 300));
    const { ms: execMs } = await abortExec(ex, pending, 3000);
    await until(async () => ((await sleeping()) === '' ? true : undefined), 'sleep gone', 3000, 100);
    await session.close!(ctx, { window: r.window!.id });
    t.diagnostic(`docker channel: abort → vm_type rejected in ${typeMs} ms (${typed} of 2000 typed); abort → vm_exec resolved in ${execMs} ms`);
  });

  it('errors are typed: bad keysym, off-screen, missing file', async () => {
    await assert.rejects(session.key!(ctx, { keys: 'ctrl+nosuchkey' }), (e: VmhubError) => e.code === 'INVALID_REQUEST' && /"nosuchkey"/.test(e.message));
    // Off-screen points are core's to refuse (against the session's screenSize()): through the router.
    await assert.rejects(routerOn(adapter, session, ctx)('vm_click', { x: 5000, y: 1, coordinate_space: 'screen' }), (e: VmhubError) => e.code === 'INVALID_REQUEST' && /off the 1280x800 screen/.test(e.message));
    await assert.rejects(session.getFile!(ctx, { path: `/nope-${rand()}`, max_bytes: 10 }), (e: VmhubError) => e.code === 'NOT_FOUND');
  });

  it('screenshot and click latency (one guest command each)', async () => {
    const shots: number[] = [], shaped: number[] = [];
    let raw, bytes = 0;
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      raw = await session.screenshot!(ctx);
      shots.push(performance.now() - t);
      const img = await shapeScreenshot(raw, { format: 'png' });
      shaped.push(performance.now() - t);
      bytes = img.data.length;
    }
    assert.deepEqual([raw!.width, raw!.height, raw!.data.length], [1280, 800, 1280 * 800 * 3]);
    const clicks: number[] = [];
    const before = calls.length;
    for (let i = 0; i < 30; i++) { const t = performance.now(); await session.click!(ctx, { x: 10 + i, y: 780, button: 'left', count: 1, modifiers: [] }); clicks.push(performance.now() - t); }
    assert.equal(calls.length - before, 30, 'one guest command per click');
    const keys: number[] = [];
    for (let i = 0; i < 20; i++) { const t = performance.now(); await session.key!(ctx, { keys: 'shift' }); keys.push(performance.now() - t); }
    const loc = await session.dispatch!(ctx, { verb: 'mouse_location', args: {} }) as { x: number; y: number };
    assert.deepEqual([loc.x, loc.y], [39, 780]);
    process.stderr.write(`[x11/docker] screenshot capture p50 ${pct(shots, 0.5).toFixed(1)} ms p95 ${pct(shots, 0.95).toFixed(1)} ms; capture+PNG p50 ${pct(shaped, 0.5).toFixed(1)} ms (${bytes} bytes); click p50 ${pct(clicks, 0.5).toFixed(1)} ms p95 ${pct(clicks, 0.95).toFixed(1)} ms; key p50 ${pct(keys, 0.5).toFixed(1)} ms p95 ${pct(keys, 0.95).toFixed(1)} ms\n`);
  });
});
