#!/usr/bin/env node
// What the shared take-over (issue 28 point 5) adds to each agent input call: the router reads
// the lease's control from the store before an input tool acts (Store.heldBy, one primary-key
// read) and takes the hand-back note after a VM-bound result (Store.takeNote, one read when no
// note waits). Measured here as those two store calls per "input call", on SQLite (a file, WAL)
// and on PostgreSQL (a real Debian server from @vmhub/postgres-testing on loopback), with the
// lease held by nobody (the common case) and with a note waiting half the time (heldBy + a
// takeNote that consumes it).
//
//   node bench/takeover-check.mjs [--n 2000]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { percentile, round } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { Store } = await import(join(root, 'packages/store/dist/index.js'));
const { startPostgres } = await import(join(root, 'packages/postgres-testing/dist/index.js'));
const { values } = parseArgs({ options: { n: { type: 'string', default: '2000' } } });
const N = Number(values.n);

function lease(id) {
  const now = Date.now();
  return { id, principal: 'bench', request_id: id, template: 't', provider: 'fake', adapter: 'fake', owner: null, status: 'ready', identity: `vmhub-bench-${id}`, created_at: now, expires_at: now + 3_600_000, max_expires_at: now + 3_600_000, deadline_at: null };
}

async function measure(store, withNotes) {
  const id = randomUUID();
  await store.createLease(lease(id));
  // The lease was taken over and handed back once: its control row exists (the slower lookup).
  await store.takeover(id, 'bench');
  await store.handback(id);
  const times = [];
  for (let i = 0; i < N + 50; i++) {
    if (withNotes && i % 2 === 0) { await store.takeover(id, 'bench'); await store.handback(id, `note ${i}`); }
    const t = process.hrtime.bigint();
    const held = await store.heldBy(id);
    const note = await store.takeNote(id);
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (held) throw new Error('nobody holds the lease');
    if (withNotes && i % 2 === 0 && note !== `note ${i}`) throw new Error(`note ${i} not taken: ${note}`);
    if (i >= 50) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { p50_ms: round(percentile(times, 50), 3), p95_ms: round(percentile(times, 95), 3), p99_ms: round(percentile(times, 99), 3) };
}

const out = { n: N };
const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-takeover-'));
const sqlite = new Store({ path: join(dir, 'vmhub.db') });
out.sqlite = { no_note: await measure(sqlite, false), note_every_other_call: await measure(sqlite, true) };
await sqlite.close();
rmSync(dir, { recursive: true, force: true });
const pg = await startPostgres();
try {
  const postgres = new Store({ path: await pg.createDatabase('takeover_bench') });
  out.postgres = { no_note: await measure(postgres, false), note_every_other_call: await measure(postgres, true) };
  await postgres.close();
} finally {
  pg.destroy();
}
console.log(JSON.stringify(out, null, 2));
