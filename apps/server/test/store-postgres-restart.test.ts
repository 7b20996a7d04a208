// PostgreSQL restarted under load (issue 18): one server process on PostgreSQL, eight agents
// each creating (with a request_id, retried), polling to ready and releasing leases in a loop,
// while the test stops and starts PostgreSQL once and SIGKILLs and starts it once. Then a
// reaper settles what the outages interrupted (bounded), and the database and the fake
// provider's directory are checked: every lease an agent was given exists exactly once, no
// request_id names two leases, every machine left belongs to exactly one live lease, each
// released lease has exactly one `lease.released` event; calls during the outages answered
// STORE_UNAVAILABLE (counted) and none answered INTERNAL; the server process lived through it.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { readFakeLedger } from '@vmhub/conformance/fake';
import { startPostgres, type PostgresServer } from '@vmhub/postgres-testing';
import { FINAL_STATUSES, Store, type LeaseRow } from '@vmhub/store';
import { connect, sandbox, type Sandbox, type Session } from './harness.ts';

const AGENTS = 8;
const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pg: PostgresServer;
let url: string;
let box: Sandbox;
let s: Session;
let reaper: ChildProcess | undefined;

before(async () => {
  pg = await startPostgres();
  // Calls retry a lost connection for 2 s, then answer STORE_UNAVAILABLE: the outages below last longer.
  url = `${await pg.createDatabase('restart_test')}?retry_ms=2000&connect_timeout_ms=1000`;
  // Quotas out of the way (leases interrupted by an outage stay live until settled); a short
  // provisioning deadline so the reaper settles a lease whose create never got going.
  box = sandbox({ leases: { max_per_owner: 500, max_total: 1000, provision_timeout_seconds: 30 } });
  s = await connect(box, { VMHUB_DB: url, XDG_STATE_HOME: join(box.dir, 'state') });
});

after(async () => {
  reaper?.kill('SIGKILL');
  await s?.close().catch(() => undefined);
  pg?.destroy();
  box?.cleanup();
});

interface Tally {
  /** lease id → the request_id it was created with, for every lease an agent was given. */
  told: Map<string, string>;
  /** Error codes answered, and how many of each. */
  codes: Map<string, number>;
  /** Leases an agent saw end `released`. */
  released: Set<string>;
  calls: number;
}

/** One tool call; an error answer is counted by its code. */
async function call(t: Tally, tool: string, args: Record<string, unknown>) {
  t.calls++;
  const r = await s.call(tool, args);
  if (r.isError) t.codes.set(r.structuredContent?.code ?? 'none', (t.codes.get(r.structuredContent?.code ?? 'none') ?? 0) + 1);
  return r;
}

/** Call until it answers without error (retrying STORE_UNAVAILABLE) or `done` says so; undefined when it gave up. */
async function retrying(t: Tally, tool: string, args: Record<string, unknown>, done: (out: any) => boolean = () => true, ms = 60_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const r = await call(t, tool, args);
    if (r.isError && r.structuredContent?.code !== 'STORE_UNAVAILABLE') return undefined;
    if (!r.isError && done(r.structuredContent)) return r.structuredContent;
    await sleep(r.isError ? 300 : 100);
  }
  return undefined;
}

async function agent(n: number, t: Tally, stop: () => boolean): Promise<void> {
  for (let i = 0; !stop(); i++) {
    const request_id = `agent${n}-${i}`;
    const lease = await retrying(t, 'vm_lease_create', { template: 'fake-stub', request_id });
    if (!lease) continue;
    t.told.set(lease.lease_id, request_id);
    await retrying(t, 'vm_lease_status', { lease_id: lease.lease_id, wait_seconds: 5 }, (l) => !['provisioning', 'starting'].includes(l.status));
    const end = await retrying(t, 'vm_lease_release', { lease_id: lease.lease_id }, (l) => FINAL_STATUSES.includes(l.status));
    if (end?.status === 'released') t.released.add(lease.lease_id);
  }
}

/** Machine records in the fake provider's directory. */
function machineRecords(): { lease_id: string; identity: string; external_id: string }[] {
  let names: string[];
  try { names = readdirSync(join(box.fakeDir, 'machines')); } catch { return []; }
  return names.flatMap((n) => { try { return [JSON.parse(readFileSync(join(box.fakeDir, 'machines', n, 'machine.json'), 'utf8'))]; } catch { return []; } });
}

it('PostgreSQL stopped and SIGKILLed under load: no lease lost or duplicated, no orphan machine, no INTERNAL', { timeout: 600_000 }, async () => {
  const t: Tally = { told: new Map(), codes: new Map(), released: new Set(), calls: 0 };
  // A reaper runs throughout, as in production: what the outages interrupt (a create whose
  // machine was never recorded, a teardown cut short) is its to settle — stuck leases failed,
  // machines nobody owns destroyed. It lives through the outages too.
  // Its orphan grace is short here (production: 300 s): a create that finishes after the reaper
  // failed its lease (the outage kept the provisioning claim from being renewed) leaves a machine
  // no live lease owns, and the orphan sweep is what destroys it — within the settle bound below.
  reaper = spawn(process.execPath, [REAPER, '--interval', '1'], { env: { PATH: process.env.PATH ?? '', HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_DB: url, VMHUB_LOG_LEVEL: 'warn', VMHUB_ORPHAN_GRACE_SECONDS: '10' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let reaperErr = '';
  reaper.stderr!.on('data', (d) => { reaperErr += d; });
  const started = Date.now();
  let stopping = false;
  const agents = Array.from({ length: AGENTS }, (_, n) => agent(n, t, () => stopping));

  await sleep(3000);
  const before1 = t.told.size;
  pg.stop();
  await sleep(6000);
  pg.start();
  await sleep(5000);
  pg.kill();
  await sleep(6000);
  pg.start();
  await sleep(5000);
  stopping = true;
  await Promise.all(agents);
  assert.ok(before1 > 0 && t.told.size > before1, `agents made leases before and after the outages (${before1}, then ${t.told.size})`);

  const agentsDone = Date.now();
  const store = new Store({ path: url });
  try {
    let rows: LeaseRow[] = [];
    const settleBy = Date.now() + 180_000;
    for (;;) {
      rows = await store.listLeases({ limit: 100_000 });
      const open = rows.filter((r) => !FINAL_STATUSES.includes(r.status));
      const stray = machineRecords().filter((m) => !rows.some((r) => r.id === m.lease_id && !FINAL_STATUSES.includes(r.status)));
      if (open.length === 0 && stray.length === 0) break;
      assert.equal(reaper.exitCode, null, `the reaper is still running: ${reaperErr.slice(-2000)}`);
      if (Date.now() > settleBy) assert.fail(`not settled after 180 s: ${open.length} open leases (${open.map((r) => r.status).join(',')}), ${stray.length} stray machines (${stray.map((m) => `${m.lease_id}: lease ${rows.find((r) => r.id === m.lease_id)?.status ?? 'absent'}`).join(', ')}); reaper: ${reaperErr.slice(-2000)}`);
      await sleep(1000);
    }

    // Every lease an agent was given exists, exactly once, under the request_id it was asked with.
    for (const [id, requestId] of t.told) {
      const found = rows.filter((r) => r.id === id);
      assert.equal(found.length, 1, `lease ${id} exists exactly once`);
      assert.equal(found[0]!.request_id, requestId);
    }
    const byRequest = new Map<string, number>();
    for (const r of rows) byRequest.set(r.request_id, (byRequest.get(r.request_id) ?? 0) + 1);
    assert.deepEqual([...byRequest].filter(([, n]) => n > 1), [], 'no request_id names two leases');

    // Every machine left belongs to exactly one live lease (none are: all settled), and the
    // provider made at most one machine per lease, each destroyed as often as it was created.
    const records = machineRecords();
    assert.deepEqual(records, [], 'no machine left once every lease is final');
    const ledger = await readFakeLedger(box.fakeDir);
    for (const r of rows) {
      const creates = ledger.filter((e) => e.op === 'create' && e.identity === r.identity).length;
      const destroys = ledger.filter((e) => e.op === 'destroy' && e.identity === r.identity).length;
      assert.ok(creates <= 1, `lease ${r.id}: ${creates} machines created`);
      assert.equal(destroys, creates, `lease ${r.id} (${r.status}): ${creates} created, ${destroys} destroyed`);
    }

    // Each released lease has exactly one lease.released event.
    for (const r of rows.filter((x) => x.status === 'released')) {
      assert.equal((await store.listEvents({ lease_id: r.id, kind: 'lease.released' })).length, 1, `lease ${r.id}: one lease.released`);
    }
    for (const id of t.released) assert.equal(rows.find((r) => r.id === id)?.status, 'released', `an agent saw ${id} released`);
  } finally {
    await store.close();
  }

  const codes = Object.fromEntries(t.codes);
  console.log(`load: agents ${Math.round((agentsDone - started) / 1000)} s, settled ${Math.round((Date.now() - agentsDone) / 1000)} s later; ${t.calls} calls, ${t.told.size} leases, ${t.released.size} released by agents; error codes: ${JSON.stringify(codes)}`);
  assert.ok((t.codes.get('STORE_UNAVAILABLE') ?? 0) > 0, `calls during the outages answered STORE_UNAVAILABLE: ${JSON.stringify(codes)}`);
  assert.equal(t.codes.get('INTERNAL'), undefined, `no INTERNAL: ${JSON.stringify(codes)}`);
  assert.deepEqual(Object.keys(codes), ['STORE_UNAVAILABLE'], `no other error: ${JSON.stringify(codes)}`);
  assert.doesNotThrow(() => process.kill(s.pid!, 0), 'the server process lived through both outages');
});
