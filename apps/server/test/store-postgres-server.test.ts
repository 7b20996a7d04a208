// The built server on a real PostgreSQL (VMHUB_DB=postgres://…, issue 18): vm_health names the
// store's kind with its URL masked; a lease is created, ready and released and its machine is
// gone; with PostgreSQL stopped the server keeps answering (tools/list, vm_health degraded with
// the store's reason) and the lease tools answer STORE_UNAVAILABLE — also from a server started
// during the outage — and after PostgreSQL starts again the same processes work; a scheme the
// store does not support stops the server at start, naming it, with no file created. The
// server's own files, which sit beside a SQLite store, go to the state directory
// ($XDG_STATE_HOME/vmhub): recordings, and the log of the reaper it starts — which gets the URL
// in its environment, never on its command line.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { readFakeLedger } from '@vmhub/conformance/fake';
import { startPostgres, type PostgresServer } from '@vmhub/postgres-testing';
import { Store } from '@vmhub/store';
import { until } from '@vmhub/test-kit';
import { BIN, connect, errorCode, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';

const PASSWORD = /vmhub-test-password/;
let pg: PostgresServer;
let url: string;
let box: Sandbox;
let s: Session;
const open: Session[] = [];

/** Machine directories the fake provider holds now. */
const machines = (dir: string): string[] => { try { return readdirSync(join(dir, 'machines')); } catch { return []; } };

async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const store = new Store({ path: url });
  try { return await fn(store); } finally { await store.close(); }
}

/** `vmhub-server doctor --json` on this store: its exit code and its store check. */
function doctorStore(): Promise<{ code: number; store: { status: string; subject: string; detail: string }; text: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'doctor', '--json'], { env: { PATH: process.env.PATH ?? '', HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_DB: url, XDG_STATE_HOME: stateHome(box) }, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: unknown }).code ?? 1) : 0;
      const report = JSON.parse(stdout) as { checks: { check: string; status: string; subject: string; detail: string }[] };
      resolve({ code, store: report.checks.find((c) => c.check === 'store')!, text: stdout + stderr });
    });
  });
}

const stateHome = (b: Sandbox) => join(b.dir, 'state');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function server(): Promise<Session> {
  const session = await connect(box, { VMHUB_DB: url, XDG_STATE_HOME: stateHome(box) });
  open.push(session);
  return session;
}

/** Create, wait ready, release one lease; returns its id after checking its machine came and went. */
async function leaseRoundTrip(session: Session): Promise<string> {
  const created = await session.call('vm_lease_create', { template: 'fake-desktop' });
  assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
  const id = created.structuredContent.lease_id as string;
  assert.equal((await waitReady(session, id)).status, 'ready');
  const row = await withStore((st) => st.getMachine(id));
  assert.ok(row?.external_id && machines(box.fakeDir).includes(row.external_id), 'the ready lease has its machine in the fake provider');
  const released = await session.call('vm_lease_release', { lease_id: id });
  assert.equal(released.structuredContent.status, 'released', JSON.stringify(released.structuredContent));
  assert.ok(!machines(box.fakeDir).includes(row.external_id!), 'its machine is gone');
  return id;
}

before(async () => {
  pg = await startPostgres();
  // A short retry window: calls during the outage answer STORE_UNAVAILABLE after 1.5 s of retrying.
  url = `${await pg.createDatabase('server_test')}?retry_ms=1500&connect_timeout_ms=1000`;
  box = sandbox();
  s = await server();
});

after(async () => {
  await Promise.allSettled(open.map((o) => o.close()));
  pg?.destroy();
  box?.cleanup();
});

it('vm_health on PostgreSQL: kind postgres, ok, the URL masked and no password anywhere', async () => {
  const h = await s.call('vm_health');
  assert.equal(h.isError, undefined, JSON.stringify(h.structuredContent));
  const store = h.structuredContent.store;
  assert.equal(store.kind, 'postgres');
  assert.equal(store.ok, true);
  assert.equal(store.reason, undefined);
  assert.match(store.path, /^postgres:\/\/vmhub:\*\*\*@127\.0\.0\.1:\d+\/server_test/);
  assert.doesNotMatch(JSON.stringify(h), PASSWORD);
  // The store it reports is the one the lease tools use: the schema was migrated in this database.
  assert.ok((await withStore((st) => st.schemaInfo())).tables.includes('leases'));
});

it('a lease on PostgreSQL: created, ready, released, its machine gone, its events in the database; its recording in the state dir', async () => {
  const created = await s.call('vm_lease_create', { template: 'fake-desktop' });
  const recorded = created.structuredContent.lease_id as string;
  await waitReady(s, recorded);
  assert.equal((await s.call('vm_screenshot', { lease_id: recorded })).isError, undefined);
  const recordings = join(stateHome(box), 'vmhub', 'recordings', recorded);
  await until(() => existsSync(recordings) && readdirSync(recordings).length > 0, 'the recording of the screenshot', 30_000);
  assert.equal((await s.call('vm_lease_release', { lease_id: recorded })).structuredContent.status, 'released');

  const id = await leaseRoundTrip(s);
  const lease = await withStore((st) => st.getLease(id));
  assert.equal(lease?.status, 'released');
  const kinds = (await withStore((st) => st.listEvents({ lease_id: id }))).map((e) => e.kind);
  assert.equal(kinds.filter((k) => k === 'lease.created').length, 1, kinds.join(','));
  assert.equal(kinds.filter((k) => k === 'lease.released').length, 1, kinds.join(','));
  const ledger = (await readFakeLedger(box.fakeDir)).filter((e) => e.identity === lease!.identity);
  assert.deepEqual(ledger.map((e) => e.op), ['create', 'destroy']);
});

it('PostgreSQL stopped: the server keeps answering (health degraded, STORE_UNAVAILABLE), then recovers', async () => {
  // A ready lease with an open session: an outage says nothing about it, so its session stays open.
  const held = (await s.call('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id as string;
  await waitReady(s, held);
  assert.equal((await s.call('vm_screenshot', { lease_id: held })).isError, undefined);
  assert.equal((await s.call('vm_health')).structuredContent.sessions.open, 1);
  const stoppedAt = Date.now();
  pg.stop();
  try {
    const tools = await s.client.listTools();
    assert.ok(tools.tools.some((t) => t.name === 'vm_lease_create'), 'tools/list still answers');
    const h = await s.call('vm_health');
    assert.equal(h.isError, undefined, 'vm_health answers, it does not fail');
    assert.equal(h.structuredContent.status, 'degraded');
    assert.equal(h.structuredContent.store.ok, false);
    assert.equal(h.structuredContent.store.kind, 'postgres');
    assert.match(h.structuredContent.store.reason, /unreachable/);
    assert.doesNotMatch(JSON.stringify(h), PASSWORD);

    const list = await s.call('vm_lease_list');
    assert.equal(errorCode(list), 'STORE_UNAVAILABLE', JSON.stringify(list.structuredContent));
    assert.equal(list.structuredContent.retryable, true);
    const create = await s.call('vm_lease_create', { template: 'fake-desktop', request_id: 'during-outage' });
    assert.equal(errorCode(create), 'STORE_UNAVAILABLE', JSON.stringify(create.structuredContent));
    assert.doesNotMatch(JSON.stringify([list, create]), PASSWORD);

    // A server started while the database is down starts, and answers the same way.
    const late = await server();
    assert.ok((await late.client.listTools()).tools.length > 0);
    assert.equal(errorCode(await late.call('vm_lease_list')), 'STORE_UNAVAILABLE');

    // The session sweep (every 5 s) ran during the outage and could not read the lease: it kept the session.
    await sleep(Math.max(0, 8000 - (Date.now() - stoppedAt)));
    assert.equal((await s.call('vm_health')).structuredContent.sessions.open, 1, 'the ready lease keeps its session through the outage');
  } finally {
    pg.start();
  }
  assert.equal((await s.call('vm_lease_release', { lease_id: held })).structuredContent.status, 'released');
  await leaseRoundTrip(s);
  await leaseRoundTrip(open[1]!);
  const h = await s.call('vm_health');
  assert.equal(h.structuredContent.store.ok, true);
  // The create refused during the outage made nothing: its request_id names no lease.
  assert.equal((await withStore((st) => st.listLeases())).filter((l) => l.request_id === 'during-outage').length, 0);
  for (const o of open) assert.doesNotMatch(o.stderr(), PASSWORD, 'the password never reaches the log');
});

it('doctor on PostgreSQL: the store reachable with its open leases, then unreachable when stopped; the URL masked', async () => {
  const up = await doctorStore();
  assert.equal(up.store.status, 'ok', JSON.stringify(up.store));
  assert.match(up.store.subject, /^postgres:\/\/vmhub:\*\*\*@/);
  assert.match(up.store.detail, /^postgres reachable, \d+ open leases?$/);
  assert.doesNotMatch(up.text, PASSWORD);
  pg.stop();
  try {
    const down = await doctorStore();
    assert.equal(down.code, 1, 'a store that does not answer fails doctor');
    assert.equal(down.store.status, 'fail');
    assert.match(down.store.detail, /^unreachable: .*unreachable/);
    assert.match(down.store.subject, /^postgres:\/\/vmhub:\*\*\*@/);
    assert.doesNotMatch(down.text, PASSWORD);
  } finally {
    pg.start();
  }
});

it('VMHUB_DB=mysql://…: the server refuses to start, naming the scheme, and creates no file', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'vmhub-mysql-'));
  try {
    const child = spawn(process.execPath, [BIN], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, VMHUB_CONFIG: box.configFile, VMHUB_DB: 'mysql://vmhub:secret@db.example/vmhub' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    assert.equal(code, 2, `exit code of a configuration error; stderr: ${stderr}`);
    assert.match(stderr, /"mysql:\/\/"/);
    assert.doesNotMatch(stderr, /secret/);
    assert.doesNotMatch(stderr, /fatal|at .*\.js:\d+/, 'one line, no stack');
    assert.deepEqual(readdirSync(cwd), [], 'no file or directory named like the URL');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

it('reaper autostart on PostgreSQL: the URL in its env, not its argv; reaper.log in the state dir', async () => {
  const auto = sandbox({ reaper: { autostart: true, interval_seconds: 1 } });
  let pid: number | undefined;
  let session: Session | undefined;
  try {
    session = await connect(auto, { VMHUB_DB: url, XDG_STATE_HOME: stateHome(auto), VMHUB_LOG_LEVEL: 'info' });
    const created = await session.call('vm_lease_create', { template: 'fake-stub' });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    let started: { pid: number; log: string } | undefined;
    await until(() => {
      const line = session!.stderr().split('\n').find((l) => l.includes('reaper started for this store'));
      started = line ? JSON.parse(line) : undefined;
      return started !== undefined;
    }, 'the server to start a reaper', 30_000);
    pid = started!.pid;
    const logFile = join(stateHome(auto), 'vmhub', 'reaper.log');
    assert.equal(started!.log, logFile);
    assert.ok(existsSync(logFile), 'reaper.log is in the state dir');
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    assert.ok(argv.includes('--while-needed'), argv.join(' '));
    assert.ok(!argv.includes('--db'), `no --db for PostgreSQL: ${argv.join(' ')}`);
    assert.doesNotMatch(argv.join(' '), PASSWORD);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes(`VMHUB_DB=${url}`), 'the reaper gets the database from its environment');
    assert.doesNotMatch(session.stderr(), PASSWORD);
    // The reaper works on this database: once the lease is released it has nothing left and exits.
    const id = created.structuredContent.lease_id as string;
    await waitReady(session, id);
    assert.equal((await session.call('vm_lease_release', { lease_id: id })).structuredContent.status, 'released');
    await until(() => { try { process.kill(pid!, 0); return false; } catch { return true; } }, 'the reaper to exit with no work left', 90_000);
    pid = undefined;
    const reaperLog = readFileSync(logFile, 'utf8');
    assert.match(reaperLog, /reaper ready .*store=postgres/, reaperLog);
    assert.match(reaperLog, /no live leases and no machines left: exiting/, reaperLog);
    assert.doesNotMatch(reaperLog, PASSWORD);
  } finally {
    if (pid) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    await session?.close();
    auto.cleanup();
  }
});
