#!/usr/bin/env node
// Reaper benchmark: one pass over 10,000 leases (mostly live, some expired) in a SQLite store,
// against the conformance fake provider (machines as directories shared between processes).
// Budget: one pass <= 1 s. Reports wall time and peak RSS of the process that runs the pass
// (a fresh child, so the setup's memory does not count), and the same pass through the built
// `vmhub-reaper --once` binary (startup included).
//
//   node bench/reaper-pass.mjs [--leases 10000] [--expired 500] [--append]
//
// Needs the built packages: apps/reaper, packages/store, packages/core, packages/conformance.
// --append adds the figures to bench/RESULTS.md under "## Reaper". `*_statements` count the SQL
// statements the store prepared during a pass (BEGIN/COMMIT included): the store's cost in a
// form that does not depend on the host's load.
import { execFileSync, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const reaperDist = join(root, 'apps/reaper/dist/index.js');
const reaperBin = join(root, 'apps/reaper/dist/bin.js');
const storeDist = join(root, 'packages/store/dist/index.js');
const fakeDist = join(root, 'packages/conformance/dist/fake/index.js');
// The store's own better-sqlite3: the setup writes rows in bulk through it, and the child counts
// the statements the store prepares on it. The Store itself exposes no database handle.
const BetterSqlite3 = createRequire(join(root, 'packages/store/package.json'))('better-sqlite3');
const BUDGET_MS = 1000;

const { values } = parseArgs({ options: { leases: { type: 'string', default: '10000' }, expired: { type: 'string', default: '500' }, append: { type: 'boolean', default: false }, child: { type: 'string' }, db: { type: 'string' }, provider: { type: 'string' } } });

const silent = () => undefined;
const INSTANCE = 'bench';
const PREFIX = `vmhub-${INSTANCE}-`;

function settings(reaperId) {
  return { reaperId, identityPrefix: PREFIX, claimMs: 60_000, orphanGraceMs: 300_000, stuckGraceMs: 120_000, provisionTimeoutMs: 900_000, callTimeoutMs: 120_000, concurrency: 4 };
}

if (values.child) {
  // The measured process: open the store, make the provider, run passes, report.
  const dir = values.child;
  let statements = 0;
  const prepare = BetterSqlite3.prototype.prepare;
  BetterSqlite3.prototype.prepare = function (...args) { statements++; return prepare.apply(this, args); };
  const { Store } = await import(storeDist);
  const { runPass } = await import(reaperDist);
  const store = new Store({ path: join(dir, values.db) });
  const provider = values.provider === 'memory' ? await memoryProvider(store) : (await import(fakeDist)).fakeProvider.create({ dir: join(dir, 'fake') }, { identityPrefix: PREFIX, log: silent });
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
  const { defineProvider } = await import(join(root, 'packages/core/dist/index.js'));
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

function measure(dir, db, provider) {
  const child = fork(fileURLToPath(import.meta.url), ['--child', dir, '--db', db, '--provider', provider], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => { child.once('message', resolve); child.once('exit', (code) => code && reject(new Error(`bench child exited ${code}`))); });
}

const N = Number(values.leases);
const EXPIRED = Number(values.expired);
const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-reaper-'));
try {
  const { Store } = await import(storeDist);
  const { fakeProvider, fakeTemplate, readFakeLedger } = await import(fakeDist);
  // Open (and migrate) through the store once, then seed the rows over a raw connection.
  await new Store({ path: join(dir, 'vmhub.db') }).close();
  const raw = new BetterSqlite3(join(dir, 'vmhub.db'));
  const provider = fakeProvider.create({ dir: join(dir, 'fake') }, { identityPrefix: PREFIX, log: silent });
  const template = fakeTemplate();
  const now = Date.now();
  const tSetup = performance.now();
  const expiredIds = new Set();
  // Leases and machine rows in one transaction (setup speed only; the pass does its own writes).
  const insertLease = raw.prepare(`insert into leases (id, request_id, template, provider, adapter, owner, status, identity, created_at, updated_at, expires_at, max_expires_at, deadline_at, stages) values (?, ?, 'fake-desktop', 'fake', 'fake', ?, 'ready', ?, ?, ?, ?, ?, null, '[]')`);
  const insertMachine = raw.prepare(`insert into machines (lease_id, identity, provider, external_id, node, state, details, created_at, updated_at) values (?, ?, 'fake', ?, null, 'running', '{}', ?, ?)`);
  const rows = [];
  for (let i = 0; i < N; i++) {
    const id = randomUUID();
    const identity = `${PREFIX}${id}`;
    const m = await provider.create({ lease_id: id, identity, template, signal: AbortSignal.timeout(10_000) });
    const expired = i % Math.max(1, Math.floor(N / EXPIRED)) === 0 && expiredIds.size < EXPIRED;
    if (expired) expiredIds.add(id);
    rows.push([id, identity, m.external_id, expired]);
  }
  raw.transaction(() => {
    for (const [id, identity, ext, expired] of rows) {
      insertLease.run(id, `req-${id}`, `owner-${id.slice(0, 2)}`, identity, now - 60_000, now - 60_000, expired ? now - 1000 : now + 3_600_000, now + 86_400_000);
      insertMachine.run(id, identity, ext, now - 60_000, now - 60_000);
    }
  })();
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  const setupMs = performance.now() - tSetup;

  copyFileSync(join(dir, 'vmhub.db'), join(dir, 'memory.db'));
  const memory = await measure(dir, 'memory.db', 'memory');
  const result = await measure(dir, 'vmhub.db', 'fake');

  const ledger = await readFakeLedger(join(dir, 'fake'));
  const destroys = ledger.filter((e) => e.op === 'destroy');
  const uniqueDestroys = new Set(destroys.map((e) => e.external_id)).size;

  // The same world through the CLI: a steady pass (nothing left to expire), startup included.
  const cliDir = join(dir, 'cli');
  mkdirSync(cliDir);
  writeFileSync(join(cliDir, 'config.json'), JSON.stringify({ instance: INSTANCE, db: join(dir, 'vmhub.db'), plugins: ['@vmhub/conformance/fake'], providers: { fake: { dir: join(dir, 'fake') } } }));
  const tCli = performance.now();
  const out = execFileSync(process.execPath, [reaperBin, '--once', '--json'], { env: { PATH: process.env.PATH, HOME: cliDir, VMHUB_CONFIG: join(cliDir, 'config.json') }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const cliWallMs = performance.now() - tCli;
  const cliSummary = JSON.parse(out.trim().split('\n').at(-1));

  const figures = {
    leases: N, expired: EXPIRED, setup_ms: Math.round(setupMs),
    pass_ms: Math.round(result.firstMs), pass_summary: `expired=${result.first.expired} reaped=${result.first.reaped} destroyed=${result.first.destroyed} errors=${result.first.errors}`,
    steady_pass_ms: Math.round(result.secondMs), fake_list_ms: Math.round(result.listMs),
    peak_rss_mb: Math.round(result.maxRssKb / 1024),
    destroy_calls: destroys.length, unique_destroyed: uniqueDestroys,
    cli_once_wall_ms: Math.round(cliWallMs), cli_pass_ms: cliSummary.duration_ms,
    memory_pass_ms: Math.round(memory.firstMs), memory_steady_pass_ms: Math.round(memory.secondMs), memory_peak_rss_mb: Math.round(memory.maxRssKb / 1024),
    pass_statements: memory.firstStatements, steady_pass_statements: memory.secondStatements,
    memory_summary: `expired=${memory.first.expired} reaped=${memory.first.reaped} destroyed=${memory.first.destroyed} errors=${memory.first.errors}`,
    budget_ms: BUDGET_MS, within_budget: memory.firstMs <= BUDGET_MS, fake_within_budget: result.firstMs <= BUDGET_MS,
    node: process.version, cpus: cpus().length,
  };
  console.log(JSON.stringify(figures, null, 2));
  if (result.first.expired !== EXPIRED || result.first.reaped !== EXPIRED || uniqueDestroys !== EXPIRED || destroys.length !== EXPIRED || memory.first.reaped !== EXPIRED || memory.first.destroyed !== EXPIRED) {
    console.error('bench: the pass did not do exactly the expected work');
    process.exitCode = 1;
  }
  if (!figures.within_budget) process.exitCode = 1;

  if (values.append) {
    const file = join(here, 'RESULTS.md');
    let text = '';
    try { text = readFileSync(file, 'utf8'); } catch { text = '# Benchmark results\n'; }
    const line = [
      `- ${new Date().toISOString().slice(0, 16)}Z, node ${process.version}, ${cpus().length} cpus (shared with other work): ${N} leases (${EXPIRED} expired), ${N} machines.`,
      `  - reaper's own cost (the machines held in memory by a provider defined in the bench): first pass **${figures.memory_pass_ms} ms** (${figures.memory_summary}; ${figures.pass_statements} store statements), steady pass ${figures.memory_steady_pass_ms} ms (${figures.steady_pass_statements} statements), peak RSS **${figures.memory_peak_rss_mb} MB**. Budget ${BUDGET_MS} ms: ${figures.within_budget ? 'met' : 'MISSED'}.`,
      `  - against @vmhub/conformance/fake (one directory per machine): first pass ${figures.pass_ms} ms (${figures.pass_summary}), steady ${figures.steady_pass_ms} ms; the fake's own list() of ${N} directories alone takes ~${figures.fake_list_ms} ms; peak RSS ${figures.peak_rss_mb} MB. Budget: ${figures.fake_within_budget ? 'met' : 'missed, dominated by the fake provider file reads'}.`,
      `  - \`vmhub-reaper --once\` on the fake store afterwards (steady; process start and plugin discovery included): wall ${figures.cli_once_wall_ms} ms, pass ${figures.cli_pass_ms} ms.`,
    ].join('\n');
    const heading = '## Reaper';
    if (!text.includes(heading)) text = `${text.trimEnd()}\n\n${heading}\n\n\`node bench/reaper-pass.mjs --append\` — one pass over 10,000 leases in the store (mostly live, some expired), measured twice: with the machines held in memory (the reaper's own cost: store queries, claims, bookkeeping) and against the conformance fake provider (adds the fake's file I/O: one directory per machine). Budget ≤ 1 s per pass. Peak RSS is the pass process's (setup excluded).\n\n`;
    const start = text.indexOf(heading);
    const next = text.indexOf('\n## ', start + heading.length);
    const section = next === -1 ? text.slice(start) : text.slice(start, next);
    const updated = `${section.trimEnd()}\n${line}\n`;
    text = text.slice(0, start) + updated + (next === -1 ? '' : `\n${text.slice(next + 1)}`);
    writeFileSync(file, text);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
