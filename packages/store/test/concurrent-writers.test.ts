// Several processes (on the built package) on one database at once, on both dialects: migrations
// race, inserts race on one request_id, and transitions race; exactly one winner each time, no
// SQLITE_BUSY or PostgreSQL conflict surfacing. On PostgreSQL this is idempotent create by
// request_id across processes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Store } from '../dist/index.js';
import { forDialects } from './dialects.ts';

const run = promisify(execFile);
const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const worker = `
const { Store } = await import(process.argv[1]);
const [path, name, n] = [process.argv[2], process.argv[3], Number(process.argv[4])];
const store = new Store({ path });
let created = 0, won = 0;
for (let i = 0; i < n; i++) {
  const now = Date.now();
  const id = name + '-' + i;
  const r = await store.createLease({ id, principal: 'tester', request_id: 'shared-' + i, template: 't', provider: 'fake', adapter: 'fake', owner: name, status: 'provisioning', identity: 'vmhub-mp-' + id, created_at: now, expires_at: now + 1e6, max_expires_at: now + 1e7, deadline_at: null });
  if (r.created) created++;
  if (await store.transition(r.lease.id, ['provisioning'], 'starting', {})) won++;
  await store.appendEvent({ lease_id: r.lease.id, actor: name, kind: 'lease.renewed' });
}
console.log(JSON.stringify({ created, won }));
await store.close();
`;

forDialects('store: concurrent writers', (d) => {
  it('four processes racing on one database agree on one winner per request_id', { timeout: 120_000 }, async () => {
    const path = await d.fresh('shared');
    const n = 150;
    const results = await Promise.all(['p1', 'p2', 'p3', 'p4'].map((name) =>
      run(process.execPath, ['--input-type=module', '-e', worker, entry, path, name, String(n)], { timeout: 110_000 }).then((r) => JSON.parse(r.stdout))));
    const created = results.reduce((s, r) => s + r.created, 0);
    const won = results.reduce((s, r) => s + r.won, 0);
    assert.equal(created, n, 'exactly one insert per request_id');
    assert.equal(won, n, 'exactly one transition winner per lease');
    const store = new Store({ path });
    try {
      assert.equal(await store.countLeases({ status: ['starting'] }), n);
      const rows = await store.listLeases({ limit: 10_000 });
      assert.equal(rows.length, n, 'one row per request_id, no duplicates');
      assert.equal(new Set(rows.map((r) => r.request_id)).size, n);
      assert.equal((await store.listEvents({ limit: 10_000 })).length, 4 * n);
    } finally {
      await store.close();
    }
  });
});
