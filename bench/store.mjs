#!/usr/bin/env node
// Store benchmark (issue 18): "lease create" on SQLite and on PostgreSQL, side by side with the
// naive way and the floor, sequential and 8-way concurrent, p50/p95/p99 per create.
//
//   node bench/store.mjs [--n 2000] [--concurrency 8] [--dialect sqlite|postgres|both] [--append]
//
// "lease create" is exactly the store calls one vm_lease_create makes before it answers
// (apps/server/src/leases/manager.ts create()): getLeaseByRequest, countLeases for the
// principal, countLeases for the instance, createLease, appendEvent('lease.created'). The
// provisioning that follows in the background (claim, stages, machine rows, transitions) is not
// part of the caller's wait and is not measured here.
//   - vmhub:  one Store for the process (SQLite: one file, WAL; PostgreSQL: its pool, 10 max).
//   - naive:  a Store opened per create and closed after it: what a handler that opens its
//             database per request does (SQLite: open the file + schema check; PostgreSQL: a new
//             connection with scram auth + schema check, no pool).
//   - floor:  the bare INSERT of the same lease row through the driver directly (better-sqlite3
//             prepared statement; pg prepared query, one connection per worker).
// Each (dialect, way, mode) gets a fresh database, migrated by the store, then 50 unmeasured
// warm-up creates. Rows are counted afterwards: every create must have left its lease row (and,
// for vmhub and naive, its event). PostgreSQL is a real Debian server from
// @vmhub/postgres-testing on loopback (fsync off, as the tests run it). Each dialect runs in a
// fresh child process, whose peak RSS is reported. --append writes the section into RESULTS.md.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { percentile, round, writeResultsSection } from './lib.mjs';
// The store's own drivers (storeRequire), for the floor and for counting rows afterwards.
import { distOf, storeRequire } from './paths.mjs';

const storeDist = distOf('packages/store');
const coreDist = distOf('packages/core');
const pgTestingDist = distOf('packages/postgres-testing');

const { values } = parseArgs({ options: {
  n: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '8' }, dialect: { type: 'string', default: 'both' },
  append: { type: 'boolean', default: false }, child: { type: 'string' }, dir: { type: 'string' }, url: { type: 'string' },
} });
const N = Number(values.n);
const CONCURRENCY = Number(values.concurrency);
const WARMUP = 50;
const WAYS = ['vmhub', 'naive', 'floor'];
const MODES = ['sequential', 'concurrent'];
// The lease row's columns, for the floor's INSERT (the store's LEASE_COLUMNS).
const COLUMNS = ['id', 'request_id', 'template', 'provider', 'adapter', 'owner', 'principal', 'status', 'identity', 'created_at', 'updated_at', 'expires_at', 'max_expires_at', 'deadline_at', 'stages', 'error_code', 'error_message', 'claimed_by', 'claim_expires_at', 'write_token'];

// ── the measured child: one dialect, every way and mode ─────────────────────────────────────

/**
 * Statements sent to the database, a cost that does not depend on the host's load: every
 * better-sqlite3 prepare (kysely prepares each query it runs; the pragmas a Store runs when it
 * opens the file are not prepares and are not counted), each run of the floor's prepared
 * INSERT, and every pg Client query (BEGIN/COMMIT included). Both drivers are the store's own
 * module instances.
 */
let statements = 0;
function countStatements() {
  const Sqlite = storeRequire('better-sqlite3');
  const prepare = Sqlite.prototype.prepare;
  Sqlite.prototype.prepare = function (...args) { statements++; return prepare.apply(this, args); };
  const { Client } = storeRequire('pg');
  const query = Client.prototype.query;
  Client.prototype.query = function (...args) { statements++; return query.apply(this, args); };
}

async function measureDialect(dialect, dir, baseUrl) {
  const { Store } = await import(storeDist);
  const { LIVE_LEASE_STATES, machineIdentity } = await import(coreDist);
  const target = (way, mode) => (dialect === 'sqlite' ? join(dir, `${way}-${mode}.db`) : dbUrl(baseUrl, `bench_${way}_${mode}`));

  /** The store calls of one vm_lease_create, in the server's order. */
  async function leaseCreate(store, i) {
    const requestId = randomUUID();
    const principal = `bench-${i % 8}`;
    if (await store.getLeaseByRequest(requestId)) throw new Error('request_id taken');
    await store.countLeases({ status: LIVE_LEASE_STATES, principal });
    await store.countLeases({ status: LIVE_LEASE_STATES });
    const row = leaseRow(randomUUID(), requestId, principal, machineIdentity);
    const { created } = await store.createLease(row);
    if (!created) throw new Error('lease not created');
    await store.appendEvent({ lease_id: row.id, actor: 'server:bench', kind: 'lease.created', data: { template: row.template, owner: row.owner, principal, request_id: requestId } });
  }

  const results = {};
  for (const way of WAYS) {
    for (const mode of MODES) {
      const where = target(way, mode);
      // A fresh database, migrated by the store.
      const migrator = new Store({ path: where });
      await migrator.ready();
      await migrator.close();
      let op; let teardown = async () => {};
      if (way === 'vmhub') {
        const store = new Store({ path: where });
        await store.ready();
        op = (i) => leaseCreate(store, i);
        teardown = () => store.close();
      } else if (way === 'naive') {
        op = async (i) => { const store = new Store({ path: where }); try { await leaseCreate(store, i); } finally { await store.close(); } };
      } else {
        const floor = await floorInserter(dialect, where, mode === 'concurrent' ? CONCURRENCY : 1, machineIdentity);
        op = floor.insert;
        teardown = floor.close;
      }
      const workers = mode === 'concurrent' ? CONCURRENCY : 1;
      await runOps(op, WARMUP, workers, 0);
      const s0 = statements;
      const t0 = performance.now();
      const times = await runOps(op, N, workers, WARMUP);
      const wallMs = performance.now() - t0;
      const perCreate = (statements - s0) / N;
      await teardown();
      const rows = await countRows(dialect, where);
      const expected = N + WARMUP;
      results[`${way}_${mode}`] = {
        p50_ms: round(percentile(times, 50), 3), p95_ms: round(percentile(times, 95), 3), p99_ms: round(percentile(times, 99), 3),
        statements_per_create: round(perCreate, 2), wall_ms: Math.round(wallMs), creates_per_s: Math.round(N / (wallMs / 1000)),
        rows_ok: rows.leases === expected && rows.events === (way === 'floor' ? 0 : expected),
        rss_mb_after: Math.round(process.memoryUsage().rss / 2 ** 20),
      };
      console.error(`[bench store] ${dialect} ${way} ${mode}: p50 ${results[`${way}_${mode}`].p50_ms} ms, rows ${JSON.stringify(rows)}`);
    }
  }
  return results;
}

/** `count` ops over `workers` concurrent loops; each op's duration in ms. */
async function runOps(op, count, workers, offset) {
  const times = [];
  let next = 0;
  await Promise.all(Array.from({ length: workers }, async (_, w) => {
    while (next < count) {
      const i = offset + next++;
      const t = performance.now();
      await op(i, w);
      times.push(performance.now() - t);
    }
  }));
  return times;
}

/** The lease row createLease writes for a vm_lease_create (the server's values). */
function leaseRow(id, requestId, principal, machineIdentity) {
  const now = Date.now();
  return {
    id, request_id: requestId, template: 'fake-desktop', provider: 'fake', adapter: 'fake', owner: 'bench-agent', principal,
    status: 'provisioning', identity: machineIdentity('bench', id), created_at: now,
    expires_at: now + 3_600_000, max_expires_at: now + 86_400_000, deadline_at: now + 900_000,
    stages: JSON.stringify([{ name: 'create', status: 'pending' }]),
  };
}

function floorValues(i, machineIdentity) {
  const r = leaseRow(randomUUID(), randomUUID(), `bench-${i % 8}`, machineIdentity);
  return [r.id, r.request_id, r.template, r.provider, r.adapter, r.owner, r.principal, r.status, r.identity, r.created_at, r.created_at, r.expires_at, r.max_expires_at, r.deadline_at, r.stages, null, null, null, null, randomUUID()];
}

/** The floor: the bare INSERT of the lease row, prepared once per connection. */
async function floorInserter(dialect, where, connections, machineIdentity) {
  if (dialect === 'sqlite') {
    const Database = storeRequire('better-sqlite3');
    const db = new Database(where);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const stmt = db.prepare(`insert into leases (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
    // Prepared once: count each run as the one statement it is.
    return { insert: async (i) => { statements++; stmt.run(...floorValues(i, machineIdentity)); }, close: async () => db.close() };
  }
  const pg = storeRequire('pg');
  const clients = [];
  for (let c = 0; c < connections; c++) { const client = new pg.Client({ connectionString: where }); await client.connect(); clients.push(client); }
  const text = `insert into leases (${COLUMNS.join(', ')}) values (${COLUMNS.map((_, k) => `$${k + 1}`).join(', ')})`;
  return {
    insert: async (i, w) => { await clients[w].query({ name: 'floor-insert-lease', text, values: floorValues(i, machineIdentity) }); },
    close: async () => { for (const c of clients) await c.end(); },
  };
}

async function countRows(dialect, where) {
  if (dialect === 'sqlite') {
    const db = new (storeRequire('better-sqlite3'))(where, { readonly: true });
    try { return { leases: db.prepare('select count(*) as n from leases').get().n, events: db.prepare('select count(*) as n from events').get().n }; } finally { db.close(); }
  }
  const client = new (storeRequire('pg').Client)({ connectionString: where });
  await client.connect();
  try {
    const l = await client.query('select count(*)::int as n from leases');
    const e = await client.query('select count(*)::int as n from events');
    return { leases: l.rows[0].n, events: e.rows[0].n };
  } finally { await client.end(); }
}

function dbUrl(base, db) {
  const u = new URL(base);
  u.pathname = `/${db}`;
  return u.toString();
}

// The measured child (forked by the parent below) stops here.
if (values.child) {
  countStatements();
  const figures = await measureDialect(values.child, values.dir, values.url);
  process.send({ ...figures, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) });
  process.exit(0);
}

// ── the parent: start PostgreSQL, run one child per dialect, report ─────────────────────────

function measureChild(dialect, dir, url) {
  const args = ['--child', dialect, '--dir', dir, '--n', String(N), '--concurrency', String(CONCURRENCY), ...(url ? ['--url', url] : [])];
  const child = fork(fileURLToPath(import.meta.url), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => code && reject(new Error(`bench child (${dialect}) exited ${code}`)));
  });
}

const dialects = values.dialect === 'both' ? ['sqlite', 'postgres'] : [values.dialect];
if (!dialects.every((d) => d === 'sqlite' || d === 'postgres')) throw new Error(`--dialect ${values.dialect}: sqlite, postgres or both`);
const started = Date.now();
const loadBefore = loadavg().map((l) => round(l, 2));
const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-store-'));
let pgServer;
try {
  const figures = { n: N, concurrency: CONCURRENCY, warmup: WARMUP };
  for (const dialect of dialects) {
    let url;
    if (dialect === 'postgres') {
      const { startPostgres } = await import(pgTestingDist);
      pgServer = await startPostgres();
      for (const way of WAYS) for (const mode of MODES) await pgServer.createDatabase(`bench_${way}_${mode}`);
      url = pgServer.url('postgres');
      figures.postgres_version = await serverVersion(url);
    }
    figures[dialect] = await measureChild(dialect, dir, url);
  }
  Object.assign(figures, { load_before: loadBefore, load_after: loadavg().map((l) => round(l, 2)), node: process.version, cpus: cpus().length });
  console.log(JSON.stringify(figures, null, 2));
  const allRows = dialects.every((d) => Object.values(figures[d]).every((c) => typeof c !== 'object' || c.rows_ok !== false));
  if (!allRows) { console.error('bench: some creates did not leave their rows'); process.exitCode = 1; }
  if (values.append) {
    writeResultsSection({
      name: 'store', title: 'Store: lease create on SQLite and PostgreSQL (issue 18)', after: 'reaper',
      targets: `measured, no target: lease create (the store calls of one vm_lease_create) p50/p95/p99, sequential and ${CONCURRENCY}-way concurrent, on both dialects, beside the naive way (a Store per create) and the floor (the bare INSERT through the driver); peak RSS`,
      figures, seconds: (Date.now() - started) / 1000, command: 'node bench/store.mjs --append',
    });
  }
} finally {
  pgServer?.destroy();
  rmSync(dir, { recursive: true, force: true });
}

async function serverVersion(url) {
  const client = new (storeRequire('pg').Client)({ connectionString: url });
  await client.connect();
  try { return (await client.query('show server_version')).rows[0].server_version; } finally { await client.end(); }
}
