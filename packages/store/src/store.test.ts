import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.ts';
import { Store, type NewLease } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function lease(id: string, requestId = `req-${id}`): NewLease {
  const now = Date.now();
  return { id, request_id: requestId, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status: 'provisioning', identity: `vmhub-test-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: now + 300_000 };
}

describe('store: migrations', () => {
  it('migrates an empty file to the latest version with every table', async () => {
    const path = join(dir, 'empty.db');
    const store = new Store({ path });
    const info = await store.schemaInfo();
    assert.equal(info.version, MIGRATIONS.at(-1)!.version);
    for (const t of ['events', 'leases', 'machines']) assert.ok(info.tables.includes(t), `table ${t}`);
    assert.equal(info.journalMode, 'wal');
    await store.close();
    // re-opening is a no-op
    const again = new Store({ path });
    assert.equal((await again.schemaInfo()).version, MIGRATIONS.at(-1)!.version);
    await again.close();
  });

  it('creates missing parent directories, and fails at once on an impossible path', async () => {
    const deep = join(dir, 'a', 'b', 'c', 'deep.db');
    await new Store({ path: deep }).close();
    const started = Date.now();
    assert.throws(() => new Store({ path: '/proc/vmhub-no-such-dir/x.db' }), /cannot create .*VMHUB_DB/);
    assert.ok(Date.now() - started < 2000);
  });

  it('refuses a database newer than this code', () => {
    const path = join(dir, 'newer.db');
    const raw = new BetterSqlite3(path);
    raw.pragma('user_version = 999');
    raw.close();
    assert.throws(() => new Store({ path }), /newer than this vmhub/);
  });
});

describe('store: leases', () => {
  it('createLease is idempotent by request_id and keeps tombstones', async () => {
    const store = new Store({ path: join(dir, 'leases.db') });
    const a = await store.createLease(lease('a', 'same'));
    const b = await store.createLease(lease('b', 'same'));
    assert.equal(a.created, true);
    assert.equal(b.created, false);
    assert.equal(b.lease.id, 'a');
    assert.equal((await store.transition('a', ['provisioning'], 'releasing'))?.status, 'releasing');
    const done = await store.transition('a', ['releasing'], 'released');
    assert.equal(done?.status, 'released');
    const again = await store.createLease(lease('c', 'same'));
    assert.equal(again.created, false, 'a released lease still owns its request_id');
    assert.equal(again.lease.status, 'released');
    await store.close();
  });

  it('transition only wins from the stated states', async () => {
    const store = new Store({ path: join(dir, 'transition.db') });
    await store.createLease(lease('x'));
    assert.equal((await store.transition('x', ['ready'], 'releasing')), undefined);
    assert.equal((await store.transition('x', ['provisioning'], 'starting'))?.status, 'starting');
    assert.equal((await store.transition('x', ['provisioning'], 'failed')), undefined);
    await store.close();
  });

  it('claims lapse and can be taken over', async () => {
    const store = new Store({ path: join(dir, 'claims.db') });
    await store.createLease(lease('c1'));
    const now = Date.now();
    assert.ok(await store.claim('c1', 'reaper-1', now + 60_000, ['provisioning']));
    assert.equal(await store.claim('c1', 'reaper-2', now + 60_000, ['provisioning']), undefined);
    await store.updateLease('c1', { claim_expires_at: now - 1 });
    assert.ok(await store.claim('c1', 'reaper-2', now + 60_000, ['provisioning']));
    await store.close();
  });

  it('machines and events round-trip', async () => {
    const store = new Store({ path: join(dir, 'machines.db') });
    await store.createLease(lease('m1'));
    await store.putMachine({ lease_id: 'm1', identity: 'vmhub-test-m1', provider: 'fake', external_id: null, node: null, state: 'creating', details: '{}' });
    await store.putMachine({ lease_id: 'm1', identity: 'vmhub-test-m1', provider: 'fake', external_id: 'abc', node: 'n1', state: 'running', details: '{}' });
    const m = await store.getMachine('m1');
    assert.equal(m?.external_id, 'abc');
    assert.equal(m?.state, 'running');
    await store.appendEvent({ lease_id: 'm1', actor: 'test', kind: 'lease.created', data: { a: 1 } });
    const events = await store.listEvents({ lease_id: 'm1' });
    assert.equal(events.length, 1);
    assert.deepEqual(JSON.parse(events[0]!.data), { a: 1 });
    await store.close();
  });
});
