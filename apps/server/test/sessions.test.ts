// Lease sessions end in every terminal state and nothing per-lease is left behind: counted from
// the server's side (vm_health sessions), the adapter's (fake sessions still open) and the
// provider's (fake channels still open), in one process with the real router and SDK client.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { fakeProvider, fakeSessions, openFakeChannels, stopFakeMachine } from '@vmhub/conformance/fake';
import { loadConfig } from '@vmhub/core/config';
import { Store } from '@vmhub/store';
import { until } from '@vmhub/test-kit';
import { createVmhubHub, type VmhubHub } from '../src/index.ts';
import { sandbox, type Sandbox } from './harness.ts';

const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));

let box: Sandbox;
let hub: VmhubHub;
let client: Client;

async function call(name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await client.callTool({ name, arguments: args }) as { isError?: boolean; structuredContent?: any };
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
}

async function ready(template = 'fake-desktop'): Promise<string> {
  const { lease_id } = await call('vm_lease_create', { template });
  for (let i = 0; i < 100; i++) {
    const s = await call('vm_lease_status', { lease_id, wait_seconds: 5 });
    if (s.status === 'ready') return lease_id;
    if (!['provisioning', 'starting'].includes(s.status)) throw new Error(`lease ${lease_id} is ${s.status}`);
  }
  throw new Error('never ready');
}

/** Use the lease so its session opens its adapter session and its channel. */
async function use(leaseId: string): Promise<void> {
  await call('vm_screenshot', { lease_id: leaseId });
  await call('vm_exec', { lease_id: leaseId, command: ['echo', 'hi'] });
}

const counts = async () => (await call('vm_health')).sessions as { open: number; channels: number };

/** `fn` on the store the server uses, opened for it and closed after. */
async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const store = new Store({ path: box.db });
  try { return await fn(store); } finally { await store.close(); }
}

/** A lease that is ready and used; its machine as the store has it. */
async function usedMachine(): Promise<{ id: string; machine: { identity: string; external_id: string } }> {
  const id = await ready();
  await use(id);
  const machine = (await withStore((store) => store.getMachine(id)))!;
  return { id, machine: { identity: machine.identity, external_id: machine.external_id! } };
}

/** The fake provider as someone outside vmhub reaches the same machines. */
const outside = () => fakeProvider.create({ dir: box.fakeDir }, { identityPrefix: `vmhub-${box.instance}-`, log: () => undefined });

before(async () => {
  box = sandbox({ leases: { max_per_owner: 1000, max_total: 1000 } }, [
    { id: 'fake-desktop', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 0 } },
    { id: 'fake-broken', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { fail_at: 'ready', ready_delay_ms: 10 } },
  ]);
  hub = createVmhubHub({ config: loadConfig({ file: box.configFile, env: {} }) });
  const { mcp } = hub.session();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await mcp.connect(b);
  client = new Client({ name: 'sessions-test', version: '1.0.0' });
  await client.connect(a);
});
after(async () => { await client.close(); await hub.close(); box.cleanup(); });

describe('server: lease sessions end in every terminal state', () => {
  it('a used lease holds one session and one channel; release ends both', async () => {
    const id = await ready();
    await use(id);
    assert.deepEqual(await counts(), { open: 1, channels: 1 });
    assert.equal(fakeSessions().open, 1);
    assert.equal(openFakeChannels(), 1);
    await call('vm_lease_release', { lease_id: id });
    assert.deepEqual(await counts(), { open: 0, channels: 0 });
    assert.equal(fakeSessions().open, 0, 'the adapter session was disposed');
    assert.equal(openFakeChannels(), 0, 'the channel was closed');
  });

  it('a lease that expires unreleased while the server runs is ended by the sweep (no call needed)', async () => {
    const id = await ready();
    await use(id);
    assert.equal((await counts()).open, 1);
    // Expire it behind the server's back, as time would: the server sees it only by sweeping.
    await withStore((store) => store.updateLease(id, { expires_at: Date.now() - 1 }));
    await until(async () => (await counts()).open === 0, 'the session to end', 15_000);
    assert.equal(openFakeChannels(), 0);
    assert.equal(fakeSessions().open, 0);
    const s = await call('vm_lease_status', { lease_id: id });
    assert.ok(['expired', 'reaped'].includes(s.status), s.status);
  });

  it('a lease released by another process, and one reaped by the reaper, end their sessions here', async () => {
    const released = await ready();
    const reaped = await ready();
    await use(released);
    await use(reaped);
    assert.equal((await counts()).open, 2);
    await withStore(async (store) => {
      // Another server's release: the same two transitions it makes.
      await store.transition(released, ['ready'], 'releasing');
      await store.transition(released, ['releasing'], 'released');
      await store.updateLease(reaped, { expires_at: Date.now() - 1 });
    });
    const { stdout } = await promisify(execFile)(process.execPath, [REAPER, '--once', '--json'], { env: { ...process.env, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error' } });
    assert.ok(stdout.length > 0);
    await until(async () => (await counts()).open === 0, 'both sessions to end', 15_000);
    assert.deepEqual(await counts(), { open: 0, channels: 0 });
    assert.equal(openFakeChannels(), 0);
    assert.equal((await call('vm_lease_status', { lease_id: reaped })).status, 'reaped');
  });

  it('a failed lease leaves no session and no channel', async () => {
    const { lease_id } = await call('vm_lease_create', { template: 'fake-broken' });
    await until(async () => (await call('vm_lease_status', { lease_id })).status === 'failed', 'the lease to fail', 15_000);
    const r = await client.callTool({ name: 'vm_screenshot', arguments: { lease_id } }) as { structuredContent?: any };
    assert.equal(r.structuredContent.code, 'PROVISION_FAILED');
    assert.deepEqual(await counts(), { open: 0, channels: 0 });
    assert.equal(openFakeChannels(), 0);
  });

  it('a machine removed behind vmhub\'s back: the next call answers MACHINE_LOST (not retryable), the lease is failed, its session ends', async () => {
    const { id, machine } = await usedMachine();
    // "docker rm -f": the machine goes, vmhub is not told.
    assert.equal(await outside().destroy(machine), 'destroyed');
    const r = await client.callTool({ name: 'vm_screenshot', arguments: { lease_id: id } }) as { isError?: boolean; structuredContent?: any };
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.code, 'MACHINE_LOST', JSON.stringify(r.structuredContent));
    assert.equal(r.structuredContent.retryable, false);
    const again = await client.callTool({ name: 'vm_exec', arguments: { lease_id: id, command: ['true'] } }) as { structuredContent?: any };
    assert.equal(again.structuredContent.code, 'MACHINE_LOST', 'every later call says so too');
    const status = await call('vm_lease_status', { lease_id: id });
    assert.equal(status.status, 'failed');
    assert.deepEqual(await counts(), { open: 0, channels: 0 });
    assert.ok((await withStore((store) => store.listEvents({ lease_id: id }))).some((e) => e.kind === 'machine.lost'));
  });

  it('a machine stopped behind vmhub\'s back: vm_lease_status says failed (MACHINE_LOST) and the machine is destroyed', async () => {
    const { id, machine } = await usedMachine();
    await stopFakeMachine(box.fakeDir, machine.external_id);
    const status = await call('vm_lease_status', { lease_id: id });
    assert.equal(status.status, 'failed');
    assert.match(status.error?.message ?? JSON.stringify(status), /stopped outside vmhub/);
    const r = await client.callTool({ name: 'vm_type', arguments: { lease_id: id, text: 'x' } }) as { structuredContent?: any };
    assert.equal(r.structuredContent.code, 'MACHINE_LOST');
    assert.equal(await outside().state!(machine), 'gone', 'the stopped machine was destroyed');
    assert.deepEqual(await counts(), { open: 0, channels: 0 });
  });

  it('200 leases used and ended leave no growth in any per-lease structure', { timeout: 300_000 }, async (t) => {
    const rt = await hub.runtime();
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const opened = fakeSessions().opened;
    for (let i = 0; i < 200; i += 20) {
      const ids = await Promise.all(Array.from({ length: 20 }, () => ready()));
      await Promise.all(ids.map(use));
      // Half released, half expired behind the server's back and found by the sweep.
      await withStore((store) => Promise.all(ids.slice(10).map((id) => store.updateLease(id, { expires_at: Date.now() - 1 }))));
      await Promise.all(ids.slice(0, 10).map((id) => call('vm_lease_release', { lease_id: id })));
      await rt.sessions.sweep();
    }
    await until(async () => (await counts()).open === 0, 'every session to end', 30_000);
    global.gc?.();
    const heapAfter = process.memoryUsage().heapUsed;
    const sizes = { sessions: await counts(), adapterSessions: fakeSessions().open, channels: openFakeChannels(), provisioning: rt.leases.inFlight() };
    t.diagnostic(`200 leases: ${fakeSessions().opened - opened} adapter sessions opened; after: ${JSON.stringify(sizes)}; heap ${(heapBefore / 1e6).toFixed(1)} → ${(heapAfter / 1e6).toFixed(1)} MB`);
    assert.equal(fakeSessions().opened - opened, 200);
    assert.deepEqual(sizes, { sessions: { open: 0, channels: 0 }, adapterSessions: 0, channels: 0, provisioning: 0 });
  });
});
