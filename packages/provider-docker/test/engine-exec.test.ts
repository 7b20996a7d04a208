/**
 * docker: readiness timeout, screen size from the template, and exec without the helper (one
 * Engine API exec per call). Measures per-exec latency of `true` both ways, and how fast an
 * aborted exec resolves (the process gone from the guest) both ways.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import type { MachineRef, TemplateConfig } from '@vmhub/core';
import { DockerChannel } from '../src/index.ts';
import { ensureGolden, makeProvider, removeContainers, stages, template } from './fixture.ts';

async function latency(run: () => Promise<unknown>, n: number): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)]!, p95: times[Math.floor(n * 0.95)]! };
}

describe('docker: readiness, screen, engine exec', { timeout: 180_000 }, () => {
  const { provider, context } = makeProvider();
  const plain = makeProvider({ exec_helper: false, max_file_bytes: 1000 }, context).provider;
  const lease = randomUUID();
  const identity = `${context.identityPrefix}${lease}`;
  const small: TemplateConfig = { ...template, provider_options: { screen: '1024x768x24' } };
  let machine: MachineRef;

  before(async () => {
    await ensureGolden();
    machine = await provider.create({ lease_id: lease, identity, template: small, signal: AbortSignal.timeout(60_000) });
  });
  after(async () => {
    await removeContainers(identity);
    await provider.close?.();
    await plain.close?.();
  });

  it('BOOT_TIMEOUT names the stage that stalled and what it saw', async () => {
    const s = stages();
    const stalled: TemplateConfig = { ...small, ready_timeout_seconds: 2, provider_options: { ...small.provider_options, display: ':9' } };
    await assert.rejects(provider.ready(machine, { signal: AbortSignal.timeout(30_000), template: stalled, stage: s.stage }), (e: any) => e.code === 'BOOT_TIMEOUT' && /stage display stuck: xdpyinfo -display :9, asked on the host over \S+\/x11\/X9: connect ENOENT/.test(e.message));
    assert.deepEqual(s.seen.slice(-1), ['display:failed']);
  });

  it('the screen size comes from provider_options.screen', async () => {
    await provider.ready(machine, { signal: AbortSignal.timeout(60_000), template: small, stage: () => {} });
    const ch = await provider.channel!(machine, small);
    const r = await ch.exec(['xdpyinfo'], { env: { DISPLAY: ':0' } });
    assert.match(r.stdout.toString(), /dimensions:\s+1024x768 pixels/);
    await ch.close();
  });

  it('exec without the helper: same results; latency of `true` helper vs plain docker exec', async () => {
    const slow = await plain.channel!(machine, small) as DockerChannel;
    const fast = await provider.channel!(machine, small) as DockerChannel;
    assert.equal(slow.mode, 'engine');
    assert.equal(fast.mode, 'helper');
    const r = await slow.exec(['sh', '-c', 'cat; echo err >&2; exit 5'], { stdin: 'in' });
    assert.equal(r.exit_code, 5);
    assert.equal(r.stdout.toString(), 'in');
    assert.equal(r.stderr.toString(), 'err\n');
    await assert.rejects(slow.putFile('/tmp/big.bin', Buffer.alloc(1001)), (e: any) => e.code === 'INVALID_REQUEST' && /cap of 1000 bytes: raise the docker provider option max_file_bytes/.test(e.message));
    await slow.putFile('/tmp/small.bin', Buffer.alloc(1000, 1));
    assert.equal((await fast.getFile('/tmp/small.bin')).length, 1000);
    const engine = await latency(() => slow.exec(['true']), 20);
    const helper = await latency(() => fast.exec(['true']), 50);
    const click = await latency(() => fast.exec(['xdotool', 'mousemove', '100', '100', 'click', '--delay', '0', '1'], { env: { DISPLAY: ':0' } }), 30);
    process.stderr.write(`[latency] xdotool mousemove+click --delay 0 via helper: p50 ${click.p50.toFixed(1)} ms p95 ${click.p95.toFixed(1)} ms\n`);
    process.stderr.write(`[latency] exec true: helper p50 ${helper.p50.toFixed(1)} ms p95 ${helper.p95.toFixed(1)} ms; plain docker exec p50 ${engine.p50.toFixed(1)} ms p95 ${engine.p95.toFixed(1)} ms\n`);
    assert.ok(helper.p50 < engine.p50, 'the helper is faster than a docker exec per call');
    await slow.close();
    await fast.close();
  });

  it('an aborted signal kills the command in the guest and resolves promptly, helper and plain docker exec alike', async () => {
    for (const [mode, p] of [['helper', provider], ['engine', plain]] as const) {
      const ch = await p.channel!(machine, small) as DockerChannel;
      assert.equal(ch.mode, mode);
      const tag = `/tmp/abort-${randomUUID().slice(0, 8)}`;
      const t0 = performance.now();
      const r = await ch.exec(['sh', '-c', `echo $$ > ${tag}.pid; exec sleep 300`], { timeoutMs: 60_000, signal: AbortSignal.timeout(500) });
      const afterAbort = performance.now() - t0 - 500;
      assert.equal(r.exit_code, null);
      assert.equal(r.timed_out, true);
      assert.ok(afterAbort < 3000, `${mode}: resolved ${afterAbort.toFixed(0)} ms after the abort`);
      const pid = (await ch.exec(['cat', `${tag}.pid`])).stdout.toString().trim();
      assert.match(pid, /^\d+$/, `${mode}: the command started and wrote its pid`);
      // SIGKILL lands asynchronously and a killed process lingers until reaped: allow a moment.
      let alive = await ch.exec(['kill', '-0', pid]);
      for (let i = 0; i < 25 && alive.exit_code === 0; i++) {
        await new Promise((res) => setTimeout(res, 200));
        alive = await ch.exec(['kill', '-0', pid]);
      }
      assert.notEqual(alive.exit_code, 0, `${mode}: the aborted process ${pid} is gone from the guest`);

      const pre = new AbortController();
      pre.abort();
      const t1 = performance.now();
      const never = await ch.exec(['touch', `${tag}.ran`], { signal: pre.signal });
      const atOnce = performance.now() - t1;
      assert.equal(never.exit_code, null);
      assert.equal(never.timed_out, true);
      assert.ok(atOnce < 500, `${mode}: an already-aborted exec resolved in ${atOnce.toFixed(0)} ms`);

      // One long-lived signal across many execs keeps no listener once each exec has ended.
      const shared = new AbortController();
      for (let i = 0; i < 5; i++) await ch.exec(['true'], { signal: shared.signal });
      await ch.exec(['sleep', '5'], { signal: shared.signal, timeoutMs: 200 });
      assert.equal(getEventListeners(shared.signal, 'abort').length, 0, `${mode}: abort listeners removed when the exec ends`);

      const ran = await ch.exec(['test', '-e', `${tag}.ran`]);
      assert.equal(ran.exit_code, 1, `${mode}: the command with an already-aborted signal never ran`);
      await ch.exec(['rm', '-f', `${tag}.pid`]);
      process.stderr.write(`[abort] ${mode}: resolved ${afterAbort.toFixed(0)} ms after the abort; already aborted: ${atOnce.toFixed(1)} ms\n`);
      await ch.close();
    }
  });

  it('a guest without perl gets a working channel through plain docker exec, with a warning, and files through sh', async () => {
    const root = await provider.channel!(machine, small);
    await root.exec(['mv', '/usr/bin/perl', '/usr/bin/perl.off'], { user: 'root' });
    await root.close();
    const ch = await provider.channel!(machine, small) as DockerChannel;
    assert.equal(ch.mode, 'engine');
    assert.ok(context.warnings.some((w) => /exec helper did not start/.test(w)), context.warnings.join('\n'));
    const r = await ch.exec(['sh', '-c', 'echo "$HOME $(pwd)"; exit 4']);
    assert.equal(r.stdout.toString(), '/home/user /home/user\n');
    assert.equal(r.exit_code, 4);
    // Files fall back to sh + coreutils, still as the user, still typed.
    const data = Buffer.from('no perl here\n');
    await ch.putFile('/home/user/noperl/f.txt', data);
    assert.ok((await ch.getFile('/home/user/noperl/f.txt')).equals(data));
    assert.equal((await ch.exec(['stat', '-c', '%u', '/home/user/noperl/f.txt', '/home/user/noperl'])).stdout.toString(), '1000\n1000\n');
    await assert.rejects(ch.putFile('/root/x.txt', data), (e: any) => e.code === 'POLICY_DENIED');
    await assert.rejects(ch.getFile('/home/user'), (e: any) => e.code === 'INVALID_REQUEST' && /is a directory/.test(e.message));
    await ch.close();
    assert.equal(await provider.destroy(machine), 'destroyed');
  });
});
