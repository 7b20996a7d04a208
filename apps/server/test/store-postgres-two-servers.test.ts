// Two server processes on one PostgreSQL database and one fake machine directory make one lease
// and one machine per request_id (issue 18): both call vm_lease_create with the same request_id
// at once, ten request_ids over; then the same with each server in its own network namespace (a
// "host" of its own, reaching PostgreSQL over a veth link). Checked in the fake provider's
// directory and ledger and in the database's events, not in the tools' answers alone.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readFakeLedger } from '@vmhub/conformance/fake';
import { createNetwork, startPostgres, type Network, type PostgresServer } from '@vmhub/postgres-testing';
import { Store } from '@vmhub/store';
import { connect, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';
import { connectSpawned } from './spawn-in-host.ts';

const REQUESTS = 10;

/** Every machine record in the fake provider's directory. */
function machineRecords(dir: string): { lease_id: string; identity: string }[] {
  let names: string[];
  try { names = readdirSync(join(dir, 'machines')); } catch { return []; }
  return names.map((n) => JSON.parse(readFileSync(join(dir, 'machines', n, 'machine.json'), 'utf8')) as { lease_id: string; identity: string });
}

/** Both servers create with each request_id at once; then every check of "one lease, one machine". */
async function sameRequestIds(a: Session, b: Session, box: Sandbox, url: string, prefix: string): Promise<void> {
  const leaseIds: string[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const request_id = `${prefix}-${i}`;
    const [ra, rb] = await Promise.all([a, b].map((s) => s.call('vm_lease_create', { template: 'fake-desktop', request_id })));
    assert.equal(ra!.isError, undefined, `${request_id}: ${JSON.stringify(ra!.structuredContent)}`);
    assert.equal(rb!.isError, undefined, JSON.stringify(rb!.structuredContent));
    assert.equal(ra!.structuredContent.lease_id, rb!.structuredContent.lease_id, `both servers answer the same lease for ${request_id}`);
    leaseIds.push(ra!.structuredContent.lease_id);
  }
  for (const [i, id] of leaseIds.entries()) assert.equal((await waitReady(i % 2 ? a : b, id, 60)).status, 'ready');

  const store = new Store({ path: url });
  try {
    const rows = (await store.listLeases({ limit: 1000 })).filter((r) => r.request_id.startsWith(`${prefix}-`));
    assert.equal(rows.length, REQUESTS, 'one lease row per request_id');
    assert.deepEqual(new Set(rows.map((r) => r.id)), new Set(leaseIds));
    const records = machineRecords(box.fakeDir);
    const ledger = await readFakeLedger(box.fakeDir);
    for (const row of rows) {
      assert.equal(records.filter((m) => m.lease_id === row.id).length, 1, `exactly one machine for lease ${row.id} (${row.request_id})`);
      assert.equal(ledger.filter((e) => e.op === 'create' && e.identity === row.identity).length, 1, `the provider created one machine for ${row.request_id}`);
      assert.equal((await store.listEvents({ lease_id: row.id, kind: 'lease.created' })).length, 1, `one lease.created event for ${row.id}`);
    }
    // Released from the server that did not provision half of them: each machine goes, once.
    for (const [i, id] of leaseIds.entries()) assert.equal((await (i % 2 ? b : a).call('vm_lease_release', { lease_id: id })).structuredContent.status, 'released');
    const left = machineRecords(box.fakeDir).filter((m) => leaseIds.includes(m.lease_id));
    assert.deepEqual(left, [], 'every machine of these leases is gone');
    const destroyed = (await readFakeLedger(box.fakeDir)).filter((e) => e.op === 'destroy' && rows.some((r) => r.identity === e.identity));
    assert.equal(destroyed.length, REQUESTS, 'each destroyed once');
  } finally {
    await store.close();
  }
}

describe('two servers, one PostgreSQL database, one request_id', () => {
  let pg: PostgresServer;
  let box: Sandbox;
  let url: string;
  const open: Session[] = [];
  before(async () => {
    pg = await startPostgres();
    url = await pg.createDatabase('two_servers');
    box = sandbox();
  });
  after(async () => {
    await Promise.allSettled(open.map((s) => s.close()));
    pg?.destroy();
    box?.cleanup();
  });

  it('two processes on one host: the same lease and one machine per request_id', async () => {
    const [a, b] = await Promise.all([connect(box, { VMHUB_DB: url }, 'client-a'), connect(box, { VMHUB_DB: url }, 'client-b')]);
    open.push(a!, b!);
    await sameRequestIds(a!, b!, box, url, 'one-host');
  });

  it('a detached command started through one server is answered by the other: running there, then its result (read from the store by either)', async () => {
    const [a, b] = open as [Session, Session];
    const created = await a.call('vm_lease_create', { template: 'fake-desktop', request_id: 'jobs-across' });
    const lease = created.structuredContent.lease_id as string;
    assert.equal((await waitReady(b, lease, 60)).status, 'ready');
    const started = await a.call('vm_exec', { lease_id: lease, shell: 'sleep 2; echo built by a', detach: true });
    assert.equal(started.isError, undefined, JSON.stringify(started.structuredContent));
    const job = started.structuredContent.job as string;
    const seen = await b.call('vm_exec', { lease_id: lease, job });
    assert.equal(seen.isError, undefined, JSON.stringify(seen.structuredContent));
    assert.equal(seen.structuredContent.job, job);
    assert.equal(seen.structuredContent.running, true, 'server b: the job runs in server a');
    let r = seen;
    for (const until = Date.now() + 30_000; r.structuredContent.running;) {
      assert.ok(Date.now() < until, 'the job ended within 30 s');
      await new Promise((res) => setTimeout(res, 200));
      r = await b.call('vm_exec', { lease_id: lease, job });
    }
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    assert.equal(r.structuredContent.exit_code, 0);
    assert.equal(r.structuredContent.stdout, 'built by a\n', 'server b answers the result of server a\'s command');
    const fromA = (await a.call('vm_exec', { lease_id: lease, job })).structuredContent;
    assert.deepEqual({ ...fromA, expires_at: undefined }, { ...r.structuredContent, expires_at: undefined }, 'both servers give the same answer');
    // The audit log names server a as the job's process.
    const store = new Store({ path: url });
    try {
      const events = await store.listEvents({ lease_id: lease, kind: 'exec.detached' });
      assert.equal(events.length, 1, 'one audit event for the job');
      assert.equal(JSON.parse(events[0]!.data).pid, a.pid, 'started by server a');
    } finally {
      await store.close();
    }
    assert.equal((await b.call('vm_lease_release', { lease_id: lease })).isError, undefined);
  });

  it('image coordinates mean the same through either server: a click through one lands where the other\'s latest screenshot showed it', async () => {
    const [a, b] = open as [Session, Session];
    const lease = (await a.call('vm_lease_create', { template: 'fake-desktop', request_id: 'screen-across' })).structuredContent.lease_id as string;
    assert.equal((await waitReady(a, lease, 60)).status, 'ready');
    const lastClick = async (s: Session) => {
      const file = await s.call('vm_get_file', { lease_id: lease, path: '/.vmhub-desktop.json' });
      const text = file.structuredContent.content ?? Buffer.from(file.structuredContent.content_base64, 'base64').toString();
      return (JSON.parse(text) as { clicks: { x: number; y: number }[] }).clicks.at(-1);
    };
    // b binds first (its session has no screenshot of its own), then a zooms: 2 image px per screen px from (200, 100).
    assert.equal((await b.call('vm_list_windows', { lease_id: lease })).isError, undefined);
    const zoom = await a.call('vm_screenshot', { lease_id: lease, region: { x: 200, y: 100, width: 200, height: 150 }, scale: 2 });
    assert.deepEqual([zoom.structuredContent.scale, zoom.structuredContent.origin], [2, { x: 200, y: 100 }], JSON.stringify(zoom.structuredContent));
    assert.equal((await b.call('vm_click', { lease_id: lease, x: 100, y: 60 })).isError, undefined);
    const there = await lastClick(b);
    assert.deepEqual([there!.x, there!.y], [250, 130], 'b mapped (100, 60) of a\'s zoom to the screen (250, 130)');
    // Back: b takes the whole screen (1:1), and a's click follows b's screenshot, not a's own zoom.
    assert.equal((await b.call('vm_screenshot', { lease_id: lease })).structuredContent.scale, 1);
    assert.equal((await a.call('vm_click', { lease_id: lease, x: 300, y: 200 })).isError, undefined);
    const back = await lastClick(a);
    assert.deepEqual([back!.x, back!.y], [300, 200], 'a mapped with b\'s latest screenshot');
    assert.equal((await a.call('vm_lease_release', { lease_id: lease })).isError, undefined);
  });

  it('one lease served by both servers in turn: one recording, every step numbered once, every frame the image its call returned', async () => {
    const [a, b] = open as [Session, Session];
    const lease = (await a.call('vm_lease_create', { template: 'fake-desktop', request_id: 'recording-across' })).structuredContent.lease_id as string;
    assert.equal((await waitReady(a, lease, 60)).status, 'ready');
    const shots: string[] = [];
    for (let i = 0; i < 6; i++) {
      const s = i % 2 ? b : a;
      // A new window each turn: every screenshot differs from the one before.
      assert.equal((await s.call('vm_launch', { lease_id: lease, app: `app-${i}` })).isError, undefined);
      const shot = await s.call('vm_screenshot', { lease_id: lease });
      const image = shot.content.find((c) => c.type === 'image') as { data: string } | undefined;
      assert.ok(image, JSON.stringify(shot.structuredContent));
      shots.push(image.data);
    }
    assert.equal(new Set(shots).size, shots.length, 'six different screens');
    // Each server's read waits for its own queued steps: b's first, then a's holds both.
    await b.client.readResource({ uri: `vmhub://leases/${lease}/recording` });
    const body = JSON.parse(((await a.client.readResource({ uri: `vmhub://leases/${lease}/recording` })).contents[0] as { text: string }).text) as { steps: { seq: number; tool: string; screenshot?: string }[] };
    const seqs = body.steps.map((st) => st.seq);
    assert.deepEqual(seqs, [...new Set(seqs)].sort((x, y) => x - y), `every step numbered once, in order: ${seqs.join(',')}`);
    const recorded = body.steps.filter((st) => st.tool === 'vm_screenshot');
    assert.equal(recorded.length, 6, 'all six screenshots are in the one recording');
    for (const [i, st] of recorded.entries()) {
      assert.ok(st.screenshot, `screenshot ${i} names its frame`);
      const frame = (await (i % 2 ? a : b).client.readResource({ uri: st.screenshot })).contents[0] as { blob: string };
      assert.equal(frame.blob, shots[i], `frame of screenshot ${i} (step ${st.seq}) is the image that call returned, read through either server`);
    }
    assert.equal((await a.call('vm_lease_release', { lease_id: lease })).isError, undefined);
  });
});

describe('two servers on two hosts (network namespaces), one PostgreSQL database', () => {
  let pg: PostgresServer;
  let net: Network;
  let box: Sandbox;
  const db = 'two_hosts';
  const open: Session[] = [];
  before(async () => {
    net = createNetwork(2);
    pg = await startPostgres({ listen: [...net.gateways], allow: [net.cidr] });
    await pg.createDatabase(db);
    box = sandbox();
  });
  after(async () => {
    await Promise.allSettled(open.map((s) => s.close()));
    net?.destroy();
    pg?.destroy();
    box?.cleanup();
  });

  it('each server in its own namespace reaches PostgreSQL over its link: one lease and one machine per request_id', async () => {
    const [h1, h2] = net.hosts;
    const sessions = await Promise.all([h1!, h2!].map((host, i) => connectSpawned(box, (argv, env) => host.spawn(argv, { env, stdio: ['pipe', 'pipe', 'pipe'] }), { VMHUB_DB: pg.url(db, host.gateway) }, `host-${i + 1}`)));
    open.push(...sessions);
    // Each server really is on its host: its health names the database at its own gateway.
    for (const [i, s] of sessions.entries()) {
      const h = await s.call('vm_health');
      assert.equal(h.structuredContent.store.ok, true, JSON.stringify(h.structuredContent.store));
      assert.ok(h.structuredContent.store.path.includes(`@${net.hosts[i]!.gateway}:`), h.structuredContent.store.path);
    }
    // ...and cannot reach the database on loopback (its namespace has its own).
    assert.throws(() => h1!.exec([process.execPath, '-e', `require('net').connect(${pg.port}, '127.0.0.1').on('error', () => process.exit(3)).on('connect', () => process.exit(0))`]), (err: { status?: number }) => err.status === 3);
    await sameRequestIds(sessions[0]!, sessions[1]!, box, pg.url(db), 'two-hosts');
  });
});
