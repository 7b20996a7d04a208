// Nobody has to run the reaper, and interrupted work finishes (issue 11, items 1 and 2): through
// the built server on the real Docker engine, with no reaper started by the test. The server
// starts one detached on the first lease; a second server sees its lock and starts none; with
// every server SIGKILLed, expired leases' containers are gone within the reaper interval plus a
// margin, a lease whose provisioning process died is failed and its container destroyed once
// the provisioner's claim lapses, and the reaper exits when nothing is left.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { debianX11Template } from '@vmhub/provider-docker';
import { Store } from '@vmhub/store';
import { until } from '@vmhub/test-kit';
import { connect, machineBox, waitReady, type Session } from './harness.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const box = machineBox('autoreap', 'ar');
const { instance, db } = box;
const INTERVAL_S = 2;
const open: Session[] = [];

const exists = (name: string) => run('docker', ['inspect', name]).then(() => true, () => false);
/** Reaper processes started for this store (the server passes --db <path>). */
async function reapers(): Promise<number[]> {
  const { stdout } = await run('pgrep', ['-f', '--', `--while-needed --db ${db}`]).catch(() => ({ stdout: '' }));
  return stdout.split('\n').filter(Boolean).map(Number);
}
async function server(): Promise<Session> {
  const s = await connect(box, { VMHUB_LOG_LEVEL: 'info' });
  open.push(s);
  return s;
}
function kill(s: Session): void {
  process.kill(s.pid!, 'SIGKILL');
}
async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const store = new Store({ path: db });
  try { return await fn(store); } finally { await store.close(); }
}

before(() => {
  box.write({
    reaper: { interval_seconds: INTERVAL_S, autostart: true },
    templates: [
      // Its X display never answers: the lease stays `starting` until its (long) ready timeout.
      { id: 'x11-slow', provider: 'docker', adapter: 'x11', os: 'linux', golden: debianX11Template.golden, ready_timeout_seconds: 600, provider_options: { display: ':9' } },
    ],
  });
});
after(async () => {
  for (const s of open) await s.close().catch(() => undefined);
  for (const pid of await reapers()) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  await box.end();
});

describe('server + reaper: nothing outlives its lease with nobody watching', () => {
  it('the first lease starts one reaper; a second server starts none; with both servers killed, expired containers go and the reaper exits', { timeout: 240_000 }, async (t) => {
    const s1 = await server();
    const a = (await s1.call('vm_lease_create', { template: 'debian-x11' })).structuredContent.lease_id as string;
    await until(async () => (await withStore((st) => st.lockHolder('reaper'))) !== undefined, 'a reaper to hold the store lock', 20_000);
    assert.equal((await reapers()).length, 1, 'one reaper runs for the store');
    assert.equal((await waitReady(s1, a, 90)).status, 'ready');

    const s2 = await server();
    const b = (await s2.call('vm_lease_create', { template: 'debian-x11' })).structuredContent.lease_id as string;
    assert.equal((await waitReady(s2, b, 90)).status, 'ready');
    await sleep(1000);
    assert.equal((await reapers()).length, 1, 'the second server saw the lock and started none');

    kill(s1);
    kill(s2);
    // Their TTLs pass (written to the store as time would; the shortest TTL is 60 s).
    await withStore(async (st) => { for (const id of [a, b]) await st.updateLease(id, { expires_at: Date.now() - 1 }); });
    const expired = Date.now();
    await until(async () => !(await exists(`vmhub-${instance}-${a}`)) && !(await exists(`vmhub-${instance}-${b}`)), 'both containers to be gone', 30_000);
    const gone = Date.now() - expired;
    t.diagnostic(`servers dead: expired containers gone ${gone} ms after expiry (reaper interval ${INTERVAL_S} s)`);
    assert.ok(gone <= INTERVAL_S * 1000 + 15_000, `gone within the interval plus a margin (${gone} ms)`);
    const statuses = await withStore(async (st) => [await st.getLease(a), await st.getLease(b)].map((l) => l!.status));
    assert.deepEqual(statuses, ['reaped', 'reaped']);
    const ended = Date.now();
    await until(async () => (await reapers()).length === 0, 'the reaper to exit (nothing left)', 30_000);
    const exited = Date.now() - ended;
    t.diagnostic(`reaper exited ${exited} ms after the last lease ended`);
    assert.equal(await withStore((st) => st.lockHolder('reaper')), undefined, 'it released its lock');
  });

  it('a lease whose provisioning server died is failed and its container destroyed once the claim lapses', { timeout: 240_000 }, async (t) => {
    const s3 = await server();
    const c = (await s3.call('vm_lease_create', { template: 'x11-slow' })).structuredContent.lease_id as string;
    await until(async () => exists(`vmhub-${instance}-${c}`), 'the container to start', 60_000);
    await until(async () => (await withStore((st) => st.getLease(c)))!.status === 'starting', 'the lease to be starting', 60_000);
    const claimed = await withStore((st) => st.getLease(c));
    assert.ok(claimed!.claimed_by?.startsWith('server:') && claimed!.claim_expires_at! > Date.now(), 'the provisioner holds a claim');
    await until(async () => (await reapers()).length === 1, 'a reaper to run', 20_000);
    kill(s3);
    const killedAt = Date.now();
    await until(async () => !(await exists(`vmhub-${instance}-${c}`)), 'the container to be destroyed', 60_000);
    const took = Date.now() - killedAt;
    const lease = (await withStore((st) => st.getLease(c)))!;
    t.diagnostic(`provisioner killed mid-starting: container destroyed ${took} ms later (claim 20 s + interval ${INTERVAL_S} s)`);
    assert.equal(lease.status, 'failed');
    assert.equal(lease.error_code, 'PROVISION_FAILED');
    assert.match(lease.error_message ?? '', /process provisioning this lease stopped/);
    assert.ok(took <= 20_000 + INTERVAL_S * 1000 + 15_000, `within the claim, an interval and a margin (${took} ms)`);
  });

  it('a release that stopped mid-way is finished by the next vm_lease_release, which says so; one still held says who holds it', { timeout: 240_000 }, async () => {
    const s4 = await server();
    const d = (await s4.call('vm_lease_create', { template: 'debian-x11' })).structuredContent.lease_id as string;
    assert.equal((await waitReady(s4, d, 90)).status, 'ready');
    // Another server started releasing it and is still at it (its claim is live).
    await withStore((st) => st.transition(d, ['ready'], 'releasing', { claimed_by: 'server:elsewhere:4242', claim_expires_at: Date.now() + 60_000 }));
    const held = await s4.call('vm_lease_release', { lease_id: d });
    assert.equal(held.structuredContent.status, 'releasing');
    assert.match(held.structuredContent.note, /another process \(server:elsewhere:4242\) is tearing the machine down/);
    assert.ok(await exists(`vmhub-${instance}-${d}`), 'nothing was torn down twice');
    // That server died: its claim lapses.
    await withStore((st) => st.updateLease(d, { claim_expires_at: Date.now() - 1 }));
    const done = await s4.call('vm_lease_release', { lease_id: d });
    assert.equal(done.structuredContent.status, 'released', JSON.stringify(done.structuredContent));
    assert.match(done.structuredContent.note, /an earlier release had stopped mid-way; this call finished it/);
    assert.equal(await exists(`vmhub-${instance}-${d}`), false, 'the container is gone');
  });
});
