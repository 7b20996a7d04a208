#!/usr/bin/env node
// Reaper benchmark: one pass over 10,000 leases (mostly live, some expired) in a SQLite store
// and in a PostgreSQL one (issue 18; a real Debian server from @vmhub/postgres-testing on
// loopback), against the conformance fake provider (machines as directories shared between processes).
// Budget: one pass <= 1 s. Reports wall time and peak RSS of the process that runs the pass
// (a fresh child, so the setup's memory does not count), and the same pass through the built
// `vmhub-reaper --once` binary (startup included).
//
//   node bench/reaper-pass.mjs [--leases 10000] [--expired 500] [--dialect sqlite|postgres|both] [--append]
//
// Needs the built packages: apps/reaper, packages/store, packages/core, packages/conformance,
// packages/postgres-testing. --append writes the figures into bench/RESULTS.md's reaper section
// (bench/run.mjs's format, its notes kept). `*_statements` count the SQL statements of a pass
// (BEGIN/COMMIT included): on SQLite the statements the store prepared (kysely prepares each one
// it runs), on PostgreSQL the queries sent through pg's Client (its prototype's query() wrapped in
// the child). The store's cost in a form that does not depend on the host's load. The setup
// writes the rows in bulk: better-sqlite3 prepared INSERTs in one transaction, or pg multi-row
// INSERTs (1 000 rows each) in one transaction.
import { execFileSync, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { distOf, storeRequire } from './paths.mjs';

const reaperDist = distOf('apps/reaper');
const reaperBin = distOf('apps/reaper', 'bin.js');
const storeDist = distOf('packages/store');
const fakeDist = distOf('packages/conformance', 'fake/index.js');
// The store's own better-sqlite3: the setup writes rows in bulk through it, and the child counts
// the statements the store prepares on it. The Store itself exposes no database handle.
const BetterSqlite3 = storeRequire('better-sqlite3');
const pgTestingDist = distOf('packages/postgres-testing');
const BUDGET_MS = 1000;

const { values } = parseArgs({ options: { leases: { type: 'string', default: '10000' }, expired: { type: 'string', default: '500' }, dialect: { type: 'string', default: 'both' }, append: { type: 'boolean', default: false }, child: { type: 'string' }, db: { type: 'string' }, provider: { type: 'string' }, fake: { type: 'string' } } });

const silent = () => undefined;
const INSTANCE = 'bench';
const PREFIX = `vmhub-${INSTANCE}-`;

function settings(reaperId) {
  return { reaperId, identityPrefix: PREFIX, claimMs: 60_000, orphanGraceMs: 300_000, stuckGraceMs: 120_000, provisionTimeoutMs: 900_000, callTimeoutMs: 120_000, concurrency: 4 };
}

if (values.child) {
  // The measured process: open the store, make the provider, run passes, report. `--db` is the
  // SQLite file's name in the bench directory, or a postgres:// URL.
  const dir = values.child;
  let statements = 0;
  const prepare = BetterSqlite3.prototype.prepare;
  BetterSqlite3.prototype.prepare = function (...args) { statements++; return prepare.apply(this, args); };
  if (values.db.startsWith('postgres://')) {
    // Loaded only for PostgreSQL, so the SQLite child's peak RSS stays comparable with earlier runs.
    const { Client } = storeRequire('pg');
    const query = Client.prototype.query;
    Client.prototype.query = function (...args) { statements++; return query.apply(this, args); };
  }
  const { Store } = await import(storeDist);
  const { runPass } = await import(reaperDist);
  const store = new Store({ path: values.db.startsWith('postgres://') ? values.db : join(dir, values.db) });
  await store.ready();
  const provider = values.provider === 'memory' ? await memoryProvider(store) : (await import(fakeDist)).fakeProvider.create({ dir: values.fake }, { identityPrefix: PREFIX, log: silent });
  const ctx = { store, providers: new Map([['fake', provider]]), configured: new Set(['fake']), unavailable: new Map(), settings: settings(`reaper:bench:${process.pid}`), log: silent };
  statements = 0;
  const t0 = performance.now();
  const first = await runPass(ctx);
  const firstMs = performance.now() - t0;
  const firstStatements = statements;
  const tList = performance.now();
  await provider.list();
  const listMs = performance.now() - tList;
  statements = 0;
  const t1 = performance.now();
  const second = await runPass(ctx);
  const secondMs = performance.now() - t1;
  const secondStatements = statements;
  await store.close();
  process.send({ firstMs, first, secondMs, second, listMs, firstStatements, secondStatements, maxRssKb: process.resourceUsage().maxRSS });
  process.exit(0);
}

// The reaper's own cost, without the fake's file I/O: the same machines held in memory.
async function memoryProvider(store) {
  const { defineProvider } = await import(distOf('packages/core'));
  const machines = new Map();
  for (const r of await store.listMachines()) machines.set(r.external_id, { identity: r.identity, external_id: r.external_id, created_at: r.created_at });
  const plugin = defineProvider({ id: 'fake', version: '0.0.0', contractVersion: 2, create: () => ({
    async status() { return { ok: true }; },
    async availability() { return { availability: 'available' }; },
    async create() { throw new Error('not used'); },
    async ready() {},
    async destroy(ref) { const m = machines.get(ref.external_id); if (!m) return 'already_gone'; if (m.identity !== ref.identity) return 'identity_mismatch'; machines.delete(ref.external_id); return 'destroyed'; },
    async list() { return [...machines.values()]; },
  }) });
  return plugin.create({}, { identityPrefix: PREFIX, log: silent });
}

function measure(dir, db, provider, fake) {
  const child = fork(fileURLToPath(import.meta.url), ['--child', dir, '--db', db, '--provider', provider, '--fake', fake], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => { child.once('message', resolve); child.once('exit', (code) => code && reject(new Error(`bench child exited ${code}`))); });
}

const N = Number(values.leases);
const EXPIRED = Number(values.expired);
const dialects = values.dialect === 'both' ? ['sqlite', 'postgres'] : [values.dialect];
if (!dialects.every((d) => d === 'sqlite' || d === 'postgres')) throw new Error(`--dialect ${values.dialect}: sqlite, postgres or both`);

/** The same world for every dialect: N machines in a fake provider directory, their lease and machine rows. */
async function makeRows(fakeDir) {
  const { fakeProvider, fakeTemplate } = await import(fakeDist);
  const provider = fakeProvider.create({ dir: fakeDir }, { identityPrefix: PREFIX, log: silent });
  const template = fakeTemplate();
  const rows = [];
  let expiredCount = 0;
  for (let i = 0; i < N; i++) {
    const id = randomUUID();
    const identity = `${PREFIX}${id}`;
    const m = await provider.create({ lease_id: id, identity, template, signal: AbortSignal.timeout(10_000) });
    const expired = i % Math.max(1, Math.floor(N / EXPIRED)) === 0 && expiredCount < EXPIRED;
    if (expired) expiredCount++;
    rows.push([id, identity, m.external_id, expired]);
  }
  return rows;
}

/** Leases and machine rows in one transaction through better-sqlite3 (setup speed only; the pass does its own writes). */
function seedSqlite(file, rows, now) {
  const raw = new BetterSqlite3(file);
  const insertLease = raw.prepare(`insert into leases (id, request_id, template, provider, adapter, owner, status, identity, created_at, updated_at, expires_at, max_expires_at, deadline_at, stages) values (?, ?, 'fake-desktop', 'fake', 'fake', ?, 'ready', ?, ?, ?, ?, ?, null, '[]')`);
  const insertMachine = raw.prepare(`insert into machines (lease_id, identity, provider, external_id, node, state, details, created_at, updated_at) values (?, ?, 'fake', ?, null, 'running', '{}', ?, ?)`);
  raw.transaction(() => {
    for (const [id, identity, ext, expired] of rows) {
      insertLease.run(id, `req-${id}`, `owner-${id.slice(0, 2)}`, identity, now - 60_000, now - 60_000, expired ? now - 1000 : now + 3_600_000, now + 86_400_000);
      insertMachine.run(id, identity, ext, now - 60_000, now - 60_000);
    }
  })();
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
}

/** The same rows through pg: multi-row INSERTs of 1 000 rows in one transaction, then ANALYZE (as autovacuum would soon). */
async function seedPostgres(url, rows, now) {
  const client = new (storeRequire('pg').Client)({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (let i = 0; i < rows.length; i += 1000) {
      const chunk = rows.slice(i, i + 1000);
      const lease = []; const machine = []; const lp = []; const mp = [];
      chunk.forEach(([id, identity, ext, expired], k) => {
        lease.push(`($${k * 6 + 1}, $${k * 6 + 2}, 'fake-desktop', 'fake', 'fake', $${k * 6 + 3}, 'ready', $${k * 6 + 4}, ${now - 60_000}, ${now - 60_000}, $${k * 6 + 5}, $${k * 6 + 6}, null, '[]')`);
        lp.push(id, `req-${id}`, `owner-${id.slice(0, 2)}`, identity, expired ? now - 1000 : now + 3_600_000, now + 86_400_000);
        machine.push(`($${k * 3 + 1}, $${k * 3 + 2}, 'fake', $${k * 3 + 3}, null, 'running', '{}', ${now - 60_000}, ${now - 60_000})`);
        mp.push(id, identity, ext);
      });
      await client.query(`insert into leases (id, request_id, template, provider, adapter, owner, status, identity, created_at, updated_at, expires_at, max_expires_at, deadline_at, stages) values ${lease.join(', ')}`, lp);
      await client.query(`insert into machines (lease_id, identity, provider, external_id, node, state, details, created_at, updated_at) values ${machine.join(', ')}`, mp);
    }
    await client.query('COMMIT');
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** One dialect: seed two stores (one per provider), measure a pass on each, then the CLI on the fake one. */
async function measureDialect(dialect, dir, pgServer) {
  const { Store } = await import(storeDist);
  const { readFakeLedger } = await import(fakeDist);
  const fakeDir = join(dir, `fake-${dialect}`);
  const memoryFakeDir = join(dir, `fake-${dialect}-unused`);
  const tSetup = performance.now();
  const rows = await makeRows(fakeDir);
  const now = Date.now();
  let fakeDb; let memoryDb; let storePath;
  if (dialect === 'sqlite') {
    // Open (and migrate) through the store once, then seed the rows over a raw connection.
    await new Store({ path: join(dir, 'vmhub.db') }).close();
    seedSqlite(join(dir, 'vmhub.db'), rows, now);
    copyFileSync(join(dir, 'vmhub.db'), join(dir, 'memory.db'));
    fakeDb = 'vmhub.db'; memoryDb = 'memory.db'; storePath = join(dir, 'vmhub.db');
  } else {
    fakeDb = await pgServer.createDatabase('reaper_fake');
    memoryDb = await pgServer.createDatabase('reaper_memory');
    for (const url of [fakeDb, memoryDb]) {
      const s = new Store({ path: url });
      await s.ready();
      await s.close();
      await seedPostgres(url, rows, now);
    }
    storePath = fakeDb;
  }
  const setupMs = performance.now() - tSetup;

  const memory = await measure(dir, memoryDb, 'memory', memoryFakeDir);
  const result = await measure(dir, fakeDb, 'fake', fakeDir);

  const ledger = await readFakeLedger(fakeDir);
  const destroys = ledger.filter((e) => e.op === 'destroy');
  const uniqueDestroys = new Set(destroys.map((e) => e.external_id)).size;

  // The same world through the CLI: a steady pass (nothing left to expire), startup included.
  const cliDir = join(dir, `cli-${dialect}`);
  mkdirSync(cliDir);
  writeFileSync(join(cliDir, 'config.json'), JSON.stringify({ instance: INSTANCE, db: storePath, plugins: ['@vmhub/conformance/fake'], providers: { fake: { dir: fakeDir } } }));
  const tCli = performance.now();
  const out = execFileSync(process.execPath, [reaperBin, '--once', '--json'], { env: { PATH: process.env.PATH, HOME: cliDir, VMHUB_CONFIG: join(cliDir, 'config.json') }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const cliWallMs = performance.now() - tCli;
  const cliSummary = JSON.parse(out.trim().split('\n').at(-1));

  const figures = {
    setup_ms: Math.round(setupMs),
    pass_ms: Math.round(result.firstMs), pass_summary: `expired=${result.first.expired} reaped=${result.first.reaped} destroyed=${result.first.destroyed} errors=${result.first.errors}`,
    steady_pass_ms: Math.round(result.secondMs), fake_list_ms: Math.round(result.listMs),
    peak_rss_mb: Math.round(result.maxRssKb / 1024),
    destroy_calls: destroys.length, unique_destroyed: uniqueDestroys,
    cli_once_wall_ms: Math.round(cliWallMs), cli_pass_ms: cliSummary.duration_ms, cli_errors: cliSummary.errors,
    memory_pass_ms: Math.round(memory.firstMs), memory_steady_pass_ms: Math.round(memory.secondMs), memory_peak_rss_mb: Math.round(memory.maxRssKb / 1024),
    pass_statements: memory.firstStatements, steady_pass_statements: memory.secondStatements,
    memory_summary: `expired=${memory.first.expired} reaped=${memory.first.reaped} destroyed=${memory.first.destroyed} errors=${memory.first.errors}`,
    within_budget: memory.firstMs <= BUDGET_MS, fake_within_budget: result.firstMs <= BUDGET_MS,
  };
  const exact = result.first.expired === EXPIRED && result.first.reaped === EXPIRED && uniqueDestroys === EXPIRED && destroys.length === EXPIRED && memory.first.reaped === EXPIRED && memory.first.destroyed === EXPIRED;
  return { figures, exact };
}

const started = Date.now();
const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);
const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-reaper-'));
let pgServer;
try {
  const figures = { leases: N, expired: EXPIRED, budget_ms: BUDGET_MS };
  let ok = true;
  for (const dialect of dialects) {
    if (dialect === 'postgres') {
      pgServer = await (await import(pgTestingDist)).startPostgres();
      figures.postgres_version = execFileSync('psql', ['-At', '-c', 'show server_version', pgServer.url()], { encoding: 'utf8' }).trim();
    }
    const { figures: f, exact } = await measureDialect(dialect, dir, pgServer);
    figures[dialect] = f;
    if (!exact) { console.error(`bench: the ${dialect} pass did not do exactly the expected work`); ok = false; }
    if (!f.within_budget) ok = false;
  }
  Object.assign(figures, { load_before: loadBefore, load_after: loadavg().map((l) => Math.round(l * 100) / 100), node: process.version, cpus: cpus().length });
  console.log(JSON.stringify(figures, null, 2));
  if (!ok) process.exitCode = 1;
  if (values.append) {
    // Imported here, not at the top: the forked child that measures a pass loads none of it.
    const { writeResultsSection } = await import('./lib.mjs');
    writeResultsSection({
      name: 'reaper', title: 'Reaper pass over 10 000 leases (issue 4)', targets: 'one pass ≤ 1 s; memory peak reported',
      figures, seconds: (Date.now() - started) / 1000, command: `node bench/reaper-pass.mjs ${process.argv.slice(2).join(' ')}`,
    });
  }
} finally {
  pgServer?.destroy();
  rmSync(dir, { recursive: true, force: true });
}
