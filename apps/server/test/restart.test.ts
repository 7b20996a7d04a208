// vm_lease_restart, vm_lease_status {stats} and vm_logs through the built server on the fake
// provider (fast; the real engines: restart-docker, restart-qemu, stats-logs, proxmox-restart):
// the lease keeps its id and expiry, goes `starting` with a reboot stage and the readiness stages
// again, then ready; a call made meanwhile waits at the lease's gate and runs on the rebooted
// machine; the session log names the restart; a person's take-over refuses it (HUMAN_CONTROL);
// bad input answers typed errors; a server killed
// mid-restart leaves a lease the reaper fails (its claim lapsed) and whose machine it destroys.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { readFakeLedger } from '@vmhub/conformance/fake';
import { Store } from '@vmhub/store';
import { connect, defaultTemplates, errorCode, leaseReady, sandbox, stdioSuite, until } from './harness.ts';

const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));
const SLOWBOOT = { id: 'fake-slowboot', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 3000 } };

const suite = stdioSuite({
  templates: [
    ...defaultTemplates(),
    SLOWBOOT,
    { id: 'fake-norestart', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 50, restarts: false } },
  ],
});
const ok = async (name: string, args: Record<string, unknown>) => {
  const r = await suite.s.call(name, args);
  assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
};

describe('vm_lease_restart on the fake provider', () => {
  it('keeps the lease id and expiry; starting with the stages again; a call made meanwhile waits and runs after', async () => {
    const lease = await leaseReady(suite.s, { template: 'fake-slowboot', ttl_seconds: 600 }, 30);
    const before = await ok('vm_lease_status', { lease_id: lease.lease_id });
    await ok('vm_put_file', { lease_id: lease.lease_id, path: '/tmp/kept.txt', content: 'kept' });
    const started = Date.now();
    // The restart waits ≤ 25 s for ready; the fake takes 3 s to boot.
    const call = suite.s.call('vm_lease_restart', { lease_id: lease.lease_id });
    // While it runs: status says starting, with the reboot stage first.
    let seen: any;
    for (let i = 0; i < 40 && seen?.status !== 'starting'; i++) seen = await ok('vm_lease_status', { lease_id: lease.lease_id });
    assert.equal(seen.status, 'starting', JSON.stringify(seen));
    assert.equal(seen.stages[0].name, 'reboot');
    // A call now waits at the gate and runs on the rebooted machine.
    const held = await ok('vm_get_file', { lease_id: lease.lease_id, path: '/tmp/kept.txt' });
    assert.ok(Date.now() - started > 2000, 'the call waited for the reboot');
    assert.equal(held.content, 'kept');
    const done = (await call).structuredContent;
    assert.equal(done.status, 'ready', JSON.stringify(done));
    assert.equal(done.lease_id, lease.lease_id);
    assert.equal(done.expires_at, before.expires_at);
    assert.deepEqual(done.stages.map((s: any) => `${s.name}:${s.status}`), ['reboot:done', 'boot:done', 'agent:done']);
    // The provider's own log and vmhub's events both say so.
    const log = await ok('vm_logs', { lease_id: lease.lease_id });
    assert.match(log.lines.join('\n'), /rebooting/);
    const events = await ok('vm_logs', { lease_id: lease.lease_id, source: 'session', tail: 3 });
    assert.deepEqual(events.lines.map((l: string) => l.split(' ')[1]), ['lease.ready', 'lease.restarting', 'lease.restarted']);
    assert.equal(events.truncated, true);
    const stats = await ok('vm_lease_status', { lease_id: lease.lease_id, stats: true });
    assert.ok(stats.stats.uptime_seconds < 60, JSON.stringify(stats.stats));
    assert.equal('cpu_percent' in stats.stats, false, 'a figure the provider does not know is absent');
    await ok('vm_lease_release', { lease_id: lease.lease_id });
  });

  it('while a person holds the lease, a restart answers HUMAN_CONTROL and does nothing; after the hand-back it runs', async () => {
    const lease = (await leaseReady(suite.s, { template: 'fake-desktop', ttl_seconds: 600 }, 30)).lease_id;
    const store = new Store({ path: suite.box.db });
    try {
      await store.takeover(lease, 'person', { allowCommandsAndFiles: true });
      const refused = await suite.s.call('vm_lease_restart', { lease_id: lease });
      assert.equal(errorCode(refused), 'HUMAN_CONTROL', JSON.stringify(refused.structuredContent));
      assert.match(refused.structuredContent.message, /nothing was done/);
      const events = await ok('vm_logs', { lease_id: lease, source: 'session', tail: 5 });
      assert.ok(!events.lines.some((l: string) => l.includes('lease.restarting')), events.lines.join('\n'));
      assert.equal((await ok('vm_lease_status', { lease_id: lease })).status, 'ready');
      await store.handback(lease);
      assert.equal((await ok('vm_lease_restart', { lease_id: lease })).status, 'ready');
    } finally {
      await store.close();
    }
  });

  it('bad input: unknown lease, tail out of range, a template that cannot restart, a lease not ready', async () => {
    const nobody = '00000000-0000-4000-8000-000000000000';
    assert.equal(errorCode(await suite.s.call('vm_lease_restart', { lease_id: nobody })), 'NOT_FOUND');
    assert.equal(errorCode(await suite.s.call('vm_logs', { lease_id: nobody })), 'NOT_FOUND');
    const lease = await leaseReady(suite.s, { template: 'fake-norestart' }, 30);
    for (const tail of [0, 1001, 2.5]) assert.equal(errorCode(await suite.s.call('vm_logs', { lease_id: lease.lease_id, tail })), 'INVALID_REQUEST', `tail ${tail}`);
    assert.equal(errorCode(await suite.s.call('vm_logs', { lease_id: lease.lease_id, source: 'kernel' })), 'INVALID_REQUEST');
    const refused = await suite.s.call('vm_lease_restart', { lease_id: lease.lease_id });
    assert.equal(errorCode(refused), 'CAPABILITY_UNAVAILABLE');
    assert.match(refused.structuredContent.message, /fake-norestart cannot be restarted: .*restarts = false/);
    const caps = await ok('vm_capabilities', { template: 'fake-norestart' });
    assert.ok(caps.unavailable.some((u: any) => u.capability === 'restart' && /restarts = false/.test(u.reason)), JSON.stringify(caps.unavailable));
    assert.ok(caps.capabilities.includes('stats') && caps.capabilities.includes('logs'));
    assert.ok((await ok('vm_capabilities', { template: 'fake-desktop' })).capabilities.includes('restart'));
    await ok('vm_lease_release', { lease_id: lease.lease_id });
    assert.equal(errorCode(await suite.s.call('vm_lease_restart', { lease_id: lease.lease_id })), 'LEASE_EXPIRED');
    const gone = await suite.s.call('vm_logs', { lease_id: lease.lease_id });
    assert.equal(errorCode(gone), 'NOT_FOUND', 'a released lease has no console log');
    assert.match(gone.structuredContent.message, /is released and has no machine any more/);
    assert.match(gone.structuredContent.hint, /source: "session"/);
    assert.ok((await ok('vm_logs', { lease_id: lease.lease_id, source: 'session' })).lines.some((l: string) => / lease\.released /.test(l)));
  });

  it('a server killed mid-restart: the claim lapses, the reaper fails the lease and destroys its machine', { timeout: 120_000 }, async () => {
    const box = sandbox({}, [SLOWBOOT]);
    const store = new Store({ path: box.db });
    try {
      const s = await connect(box);
      const lease = (await leaseReady(s, { template: 'fake-slowboot' }, 30)).lease_id;
      void s.call('vm_lease_restart', { lease_id: lease }).catch(() => undefined);
      await until(async () => ((await store.getLease(lease))?.status === 'starting' ? true : undefined), 'the lease starting', 10_000, 50);
      const pid = s.pid!;
      process.kill(pid, 'SIGKILL');
      await until(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, 'the server to die', 10_000);
      await s.close().catch(() => undefined);
      // The claim a restart holds is renewed every few seconds; its lapse is not waited for here.
      const held = await store.getLease(lease);
      assert.ok(held?.claimed_by?.startsWith('server:') && held.claim_expires_at! > Date.now(), `the restart held a claim: ${JSON.stringify(held)}`);
      await store.updateLease(lease, { claim_expires_at: Date.now() - 1000 }, ['starting']);
      await promisify(execFile)(process.execPath, [REAPER, '--once'], { env: { ...process.env, HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error' } }).catch((e: { code?: number }) => { if (e.code !== 1) throw e; });
      const after = await store.getLease(lease);
      assert.equal(after?.status, 'failed');
      assert.equal(after?.error_code, 'PROVISION_FAILED');
      assert.match(after?.error_message ?? '', /stopped \(its claim lapsed\) while it was starting/);
      const ledger = await readFakeLedger(box.fakeDir);
      assert.equal(ledger.filter((e) => e.op === 'destroy' && e.identity === after!.identity).length, 1, `its machine destroyed: ${JSON.stringify(ledger)}`);
    } finally {
      await store.close();
      box.cleanup();
    }
  });
});
