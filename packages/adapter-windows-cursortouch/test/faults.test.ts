/**
 * Every fault the stand-in injects, as the adapter answers it: no key on the vmhub host, a key
 * Windows-MCP refuses (401), a Host header it refuses, a quarantined screenshot, slow calls
 * (deadline and cancellation), and "call Snapshot first". Both tool sets where they differ.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { VmhubError } from '@vmhub/core';
import { startStandin } from '@vmhub/windows-mcp-standin';
import { createWindowsAdapter } from '../src/index.ts';
import { callCtx, standinLease, type Standin } from './standin.ts';

const KEY = 'fault-key';
const started: { close(): Promise<void> }[] = [];
after(async () => { for (const s of started.reverse()) await s.close(); });

async function setup(version: string, key: string | undefined, opts: Record<string, unknown> = {}, adapterOptions: Record<string, unknown> = {}) {
  const standin: Standin = await startStandin({ version, authKey: KEY, ...opts });
  const l = standinLease(standin, key, adapterOptions);
  const session = await createWindowsAdapter().open(l.lease);
  started.push(standin, l, { close: () => session.dispose() });
  return { standin, l, session, ctx: (limit?: number | AbortSignal) => callCtx(l.lease, limit) };
}

async function failure(p: Promise<unknown>): Promise<VmhubError> {
  try { await p; } catch (err) { return err as VmhubError; }
  assert.fail('expected the call to fail');
}

describe('a Windows-MCP restart mid-lease', () => {
  it('the adapter opens a new MCP session (the old one is "not found") and the call lands on the new server', async () => {
    const first = await startStandin({ version: '0.8.2', authKey: KEY });
    const l = standinLease(first, KEY);
    const session = await createWindowsAdapter().open(l.lease);
    started.push(l, { close: () => session.dispose() });
    await session.screenshot!(callCtx(l.lease));
    const port = first.port;
    await first.close();
    const second = await startStandin({ version: '0.8.2', authKey: KEY, port });
    started.push(second);
    await session.click!(callCtx(l.lease), { x: 33, y: 44, button: 'left', count: 1, modifiers: [] });
    assert.deepEqual(second.state.clicks.at(-1), { x: 33, y: 44, button: 'left', clicks: 1 });
  });
});

describe('vm_type before any click', () => {
  it('0.8.2 reports the cursor: Type clicks there and types', async () => {
    const { session, ctx, standin } = await setup('0.8.2', KEY);
    await session.type!(ctx(), { text: 'at the cursor' });
    assert.deepEqual(standin.state.clicks.at(-1), { ...standin.state.pointer, button: 'left', clicks: 1 });
  });
  it('0.5.8 reports no cursor: refused, nothing clicked', async () => {
    const { session, ctx, standin } = await setup('0.5.8', KEY);
    const e = await failure(session.type!(ctx(), { text: 'x' }));
    assert.equal(e.code, 'INVALID_REQUEST');
    assert.match(e.message, /click the field/);
    assert.equal(standin.state.clicks.length, 0);
  });
});

for (const version of ['0.5.8', '0.8.2']) {
  describe(`faults on Windows-MCP ${version} (stand-in)`, () => {
    it('no key on the vmhub host: every capability answers CAPABILITY_UNAVAILABLE naming the variable, and probe says so', async () => {
      const { session, ctx, l, standin } = await setup(version, undefined);
      for (const call of [session.screenshot!(ctx()), session.click!(ctx(), { x: 1, y: 1, button: 'left', count: 1, modifiers: [] }), session.exec!(ctx(), { argv: ['whoami.exe'], timeout_ms: 1000, max_output_bytes: 10 })]) {
        const e = await failure(call);
        assert.equal(e.code, 'CAPABILITY_UNAVAILABLE');
        assert.match(e.message, new RegExp(l.keyEnv));
      }
      const probe = await session.probe!(ctx());
      assert.equal(Object.keys(probe).length, 17);
      assert.match(probe.screenshot!, new RegExp(l.keyEnv));
      assert.equal(standin.state.calls.length, 0, 'nothing was sent without a key');
    });

    it('the lease\'s own secret (made by the provider at create) is the key: no host env var needed, and it wins over one', async () => {
      const standin: Standin = await startStandin({ version, authKey: KEY });
      const l = standinLease(standin, 'a-stale-host-key', {}, { WINDOWS_MCP_AUTH_KEY: KEY });
      const session = await createWindowsAdapter().open(l.lease);
      started.push(standin, l, { close: () => session.dispose() });
      const raw = await session.screenshot!(callCtx(l.lease));
      assert.ok(raw.width > 0, 'Windows-MCP accepted the lease secret');
      assert.deepEqual(await session.probe!(callCtx(l.lease)), {}, 'probe finds the key');
    });

    it('a key Windows-MCP refuses (401): CAPABILITY_UNAVAILABLE naming the key variable', async () => {
      const { session, ctx, l } = await setup(version, 'wrong-key');
      const e = await failure(session.screenshot!(ctx()));
      assert.equal(e.code, 'CAPABILITY_UNAVAILABLE');
      assert.match(e.message, /401/);
      assert.match(e.message, new RegExp(l.keyEnv));
      assert.match((await session.probe!(ctx())).click!, /401/);
    });

    it('faults.unauthorized: the same, and the session recovers once the key is accepted', async () => {
      const { session, ctx, standin } = await setup(version, KEY, { faults: { unauthorized: true } });
      assert.equal((await failure(session.screenshot!(ctx()))).code, 'CAPABILITY_UNAVAILABLE');
      standin.faults.unauthorized = false;
      const raw = await session.screenshot!(ctx());
      assert.ok(raw.width > 0);
    });

    it('a Host header Windows-MCP refuses: CAPABILITY_UNAVAILABLE naming the Host check', async () => {
      const { session, ctx } = await setup(version, KEY, { faults: { allowedHosts: ['10.0.0.5'] } });
      const e = await failure(session.screenshot!(ctx()));
      assert.equal(e.code, 'CAPABILITY_UNAVAILABLE');
      assert.match(e.message, /Host/);
      assert.match(e.hint, /--host 127\.0\.0\.1|ip-allowlist/);
    });

    it('host_header: a Windows-MCP bound to one address accepts the Host it expects', async () => {
      const { session, ctx } = await setup(version, KEY, { faults: { allowedHosts: ['10.0.0.5'] } }, { host_header: '10.0.0.5:8000' });
      assert.ok((await session.screenshot!(ctx())).width > 0);
    });

    it('a quarantined screenshot: a typed retryable error; the next one works', async () => {
      const { session, ctx, standin } = await setup(version, KEY, { faults: { quarantine: 1 } });
      const e = await failure(session.screenshot!(ctx()));
      assert.equal(e.code, 'INTERNAL');
      assert.equal(e.retryable, true);
      assert.equal(e.details?.windows_mcp_error, 'SCREENSHOT_QUARANTINE');
      assert.match(e.message, /quarantined/i);
      assert.equal(standin.faults.quarantine, 0);
      assert.ok((await session.screenshot!(ctx())).width > 0);
    });

    it('slow calls: the call timeout answers TIMEOUT (retryable); a cancelled call stops at once', async () => {
      const { session, ctx, standin } = await setup(version, KEY, {}, { call_timeout_ms: 1000 });
      await session.screenshot!(ctx());
      standin.faults.slowMs = 5000;
      const t = await failure(session.click!(ctx(), { x: 5, y: 5, button: 'left', count: 1, modifiers: [] }));
      assert.equal(t.code, 'TIMEOUT');
      assert.equal(t.retryable, true);
      standin.faults.slowMs = 60_000;
      const ctl = new AbortController();
      const call = session.key!(ctx(ctl.signal), { keys: 'shift' });
      setTimeout(() => ctl.abort(), 200);
      const c = await failure(call);
      assert.equal(c.code, 'TIMEOUT');
      assert.match(c.message, /cancelled/);
      standin.faults.slowMs = 0;
    });

    it('a cancelled vm_exec answers TIMEOUT and the session keeps working', async () => {
      const { session, ctx } = await setup(version, KEY);
      const ctl = new AbortController();
      const call = session.exec!(ctx(ctl.signal), { argv: ['powershell.exe', '-NoProfile', '-Command', 'Start-Sleep -Seconds 30'], timeout_ms: 60_000, max_output_bytes: 1024 });
      setTimeout(() => ctl.abort(), 300);
      const e = await failure(call);
      assert.equal(e.code, 'TIMEOUT');
      const r = await session.exec!(ctx(), { argv: ['whoami.exe'], timeout_ms: 10_000, max_output_bytes: 1024 });
      assert.equal(r.exit_code, 0);
      assert.match(r.stdout.toString(), /vmhub/);
    });

    it('"call Snapshot first": the adapter takes a Snapshot and retries once', async (t) => {
      if (version === '0.5.8') { t.skip('0.5.8 has no element labels and never answers "call Snapshot first"'); return; }
      const { session, ctx, standin } = await setup(version, KEY, { faults: { snapshotFirst: true } });
      const before = standin.state.snapshots;
      await session.click!(ctx(), { x: 50, y: 60, button: 'left', count: 1, modifiers: [] });
      assert.equal(standin.state.snapshots, before + 1);
      assert.deepEqual(standin.state.clicks.at(-1), { x: 50, y: 60, button: 'left', clicks: 1 });
    });
  });
}
