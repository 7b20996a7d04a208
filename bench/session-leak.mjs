#!/usr/bin/env node
// Per-lease state after many leases (issue 9): the in-process server (built dist, real router,
// SDK client over an in-memory transport, conformance fake plugins) runs N leases, each used
// (screenshot + exec: its session opens the adapter session and a channel) and ended — half
// released, half expired behind the server's back and found by the session sweep. After every
// quarter it forces a GC and records the heap and every per-lease count: open sessions, open
// channels, open fake adapter sessions, leases in flight. The floor is the same number of tool
// calls that make no lease (vm_health), run first in the same process.
//
//   node --expose-gc bench/session-leak.mjs [--leases 200] [--settle 60]   (run.mjs spawns it so)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { fakeSessions, openFakeChannels } from '@vmhub/conformance/fake';
import { Store } from '@vmhub/store';

const root = new URL('../', import.meta.url);
const { createVmhubHub } = await import(new URL('apps/server/dist/index.js', root).href);
const { loadConfig } = await import(new URL('packages/core/dist/config-entry.js', root).href);

const { values } = parseArgs({ options: { leases: { type: 'string', default: '200' }, settle: { type: 'string', default: '60' } } });
const N = Number(values.leases);
if (!global.gc) throw new Error('run with node --expose-gc');

const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-leak-'));
const db = join(dir, 'vmhub.db');
const configFile = join(dir, 'config.json');
writeFileSync(configFile, JSON.stringify({
  instance: 'benchleak', db, plugins: ['@vmhub/conformance/fake'], providers: { fake: { dir: join(dir, 'fake') } },
  leases: { max_per_owner: 100000, max_total: 100000 },
  templates: [{ id: 'fake-desktop', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 0 } }],
}));

const hub = createVmhubHub({ config: loadConfig({ file: configFile, env: {} }) });
const { mcp } = hub.session();
const [a, b] = InMemoryTransport.createLinkedPair();
await mcp.connect(b);
const client = new Client({ name: 'bench-leak', version: '1.0.0' });
await client.connect(a);
const call = async (name, args = {}) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
};
const rt = await hub.runtime();

function heap() {
  global.gc(); global.gc();
  return process.memoryUsage().heapUsed;
}
async function counts() {
  return { sessions: (await call('vm_health')).sessions, adapter_sessions_open: fakeSessions().open, fake_channels_open: openFakeChannels(), leases_in_flight: rt.leases.inFlight() };
}

async function ready() {
  const { lease_id } = await call('vm_lease_create', { template: 'fake-desktop' });
  for (;;) {
    const s = await call('vm_lease_status', { lease_id, wait_seconds: 5 });
    if (s.status === 'ready') return lease_id;
    if (!['provisioning', 'starting'].includes(s.status)) throw new Error(s.status);
  }
}

// Warm up (JIT, SQLite caches, sharp) so the first quarter does not count start-up.
for (let i = 0; i < 10; i++) { const id = await ready(); await call('vm_screenshot', { lease_id: id }); await call('vm_lease_release', { lease_id: id }); }

// The floor: as many tool calls as the leases make, without leases.
const CALLS_PER_LEASE = 5;
const floor0 = heap();
for (let i = 0; i < N * CALLS_PER_LEASE; i++) await call('vm_health');
const floor = heap() - floor0;

const start = heap();
const samples = [];
const t0 = Date.now();
for (let done = 0; done < N;) {
  const batch = Math.min(10, N - done);
  const ids = await Promise.all(Array.from({ length: batch }, ready));
  await Promise.all(ids.map(async (id) => { await call('vm_screenshot', { lease_id: id }); await call('vm_exec', { lease_id: id, command: ['echo', 'x'] }); }));
  const store = new Store({ path: db });
  try { await Promise.all(ids.slice(batch / 2).map((id) => store.updateLease(id, { expires_at: Date.now() - 1 }))); } finally { await store.close(); }
  await Promise.all(ids.slice(0, batch / 2).map((id) => call('vm_lease_release', { lease_id: id })));
  await rt.sessions.sweep();
  done += batch;
  if (done % Math.max(10, Math.round(N / 40) * 10) === 0 || done === N) samples.push({ leases: done, heap_delta_kb: Math.round((heap() - start) / 1024), ...(await counts()) });
}
const elapsed = Date.now() - t0;
// Each VM-bound call holds a deadline timer (AbortSignal.timeout, 55 s) until it fires: what is
// still allocated after they have all fired is what the leases left behind.
await new Promise((r) => setTimeout(r, Number(values.settle) * 1000));
samples.push({ leases: N, after_settle_seconds: Number(values.settle), heap_delta_kb: Math.round((heap() - start) / 1024), ...(await counts()) });
const last = samples.at(-1);
const result = {
  leases: N,
  seconds: Number((elapsed / 1000).toFixed(1)),
  samples,
  heap_growth_per_lease_bytes_after_settle: Math.round(((heap() - start) / N)),
  floor_same_calls_without_leases_kb: Math.round(floor / 1024),
  per_lease_structures_after: { sessions: last.sessions, adapter_sessions_open: last.adapter_sessions_open, fake_channels_open: last.fake_channels_open, leases_in_flight: last.leases_in_flight },
};
await client.close();
await hub.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(JSON.stringify(result) + '\n');
