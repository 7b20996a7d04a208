// The store's basics on both dialects: migrations (and what each dialect refuses), idempotent
// create by request_id with tombstones, conditional transitions, lapsing claims, machines and events.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { freePort } from '@vmhub/test-kit';
import { forDialects, tempDir } from '../test/dialects.ts';
import { StoreUnavailableError, StoreVersionError } from './errors.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { Store, type NewLease } from './store.ts';

const LATEST = MIGRATIONS.at(-1)!.version;

function lease(id: string, requestId = `req-${id}`): NewLease {
  const now = Date.now();
  return { id, principal: 'tester', request_id: requestId, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status: 'provisioning', identity: `vmhub-test-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: now + 300_000 };
}

forDialects('store: migrations', (d) => {
  it('migrates an empty database to the latest version with every table', async () => {
    const path = await d.fresh('empty');
    const store = d.connect(path);
    const info = await store.schemaInfo();
    assert.equal(info.kind, d.kind);
    assert.equal(info.version, LATEST);
    for (const t of ['events', 'leases', 'machines']) assert.ok(info.tables.includes(t), `table ${t}`);
    if (d.kind === 'sqlite') assert.equal(info.journalMode, 'wal');
    else {
      assert.equal(info.journalMode, undefined);
      assert.ok(info.tables.includes('vmhub_schema'), 'vmhub_schema records the versions');
    }
    await store.close();
    // re-opening is a no-op
    const again = d.connect(path);
    assert.equal((await again.schemaInfo()).version, LATEST);
    await again.close();
  });

  if (d.kind === 'sqlite') {
    it('creates missing parent directories, and fails at once on an impossible path', async () => {
      const deep = join(tempDir(), 'a', 'b', 'c', 'deep.db');
      await new Store({ path: deep }).close();
      const started = Date.now();
      assert.throws(() => new Store({ path: '/proc/vmhub-no-such-dir/x.db' }), /cannot create .*VMHUB_DB/);
      assert.ok(Date.now() - started < 2000);
    });

    it('migration 5 rebuilds leases (request_id per principal) keeping rows, machines and foreign keys', async () => {
      const path = await d.fresh('v4');
      const raw = new BetterSqlite3(path);
      raw.pragma('foreign_keys = ON');
      for (const m of MIGRATIONS.filter((x) => x.version <= 4)) raw.exec(m.sql);
      raw.pragma('user_version = 4');
      const now = Date.now();
      const insert = raw.prepare("INSERT INTO leases (id, request_id, template, provider, adapter, owner, principal, status, identity, created_at, updated_at, expires_at, max_expires_at, stages) VALUES (?, ?, 't', 'fake', 'fake', 'o', ?, 'ready', ?, ?, ?, ?, ?, '[]')");
      insert.run('old-1', 'r1', 'alice', 'vmhub-test-old-1', now, now, now + 60_000, now + 86_400_000);
      insert.run('old-2', 'r2', null, 'vmhub-test-old-2', now + 1, now, now + 60_000, now + 86_400_000);
      raw.prepare("INSERT INTO machines (lease_id, identity, provider, state, created_at, updated_at) VALUES ('old-1', 'vmhub-test-old-1', 'fake', 'running', ?, ?)").run(now, now);
      raw.close();
      const store = d.connect(path);
      assert.equal((await store.schemaInfo()).version, LATEST);
      assert.deepEqual((await store.listLeases()).map((l) => [l.id, l.request_id, l.principal]), [['old-1', 'r1', 'alice'], ['old-2', 'r2', null]]);
      assert.equal((await store.getMachine('old-1'))?.state, 'running', 'the machine row still points at its lease');
      assert.equal((await store.createLease({ ...lease('new-1', 'r1'), principal: 'bob' })).created, true, 'r1 is free for another principal');
      assert.equal((await store.createLease({ ...lease('new-2', 'r1'), principal: 'alice' })).lease.id, 'old-1', 'and still alice\'s');
      await assert.rejects(store.putMachine({ lease_id: 'no-such-lease', identity: 'vmhub-test-x', provider: 'fake', external_id: null, node: null, state: 'creating', details: '{}' }), /FOREIGN KEY/, 'foreign keys are on again');
      await store.close();
    });

    it('refuses a database newer than this code', async () => {
      const path = await d.fresh('newer');
      const raw = new BetterSqlite3(path);
      raw.pragma('user_version = 999');
      raw.close();
      assert.throws(() => new Store({ path }), /newer than this vmhub/);
    });
  } else {
    it('a host that refuses connections fails the call with StoreUnavailableError naming the masked URL', async () => {
      const port = await freePort();
      const store = d.connect(`postgres://vmhub:secret-pw@127.0.0.1:${port}/nothing?retry_ms=500`);
      await assert.rejects(store.ready(), (err: unknown) =>
        err instanceof StoreUnavailableError && err.code === 'STORE_UNAVAILABLE' && err.message.includes(`postgres://vmhub:***@127.0.0.1:${port}/nothing`) && !err.message.includes('secret-pw'));
      await assert.rejects(store.getLease('x'), StoreUnavailableError);
    });

    it('refuses a database newer than this code (vmhub_schema version 999)', async () => {
      const path = await d.fresh('newer');
      const first = d.connect(path);
      await first.ready();
      await first.close();
      const raw = new pg.Client({ connectionString: path });
      await raw.connect();
      await raw.query("insert into vmhub_schema (version, name, applied_at) values (999, 'future', 0)");
      await raw.end();
      const store = d.connect(path);
      await assert.rejects(store.ready(), (err: unknown) => err instanceof StoreVersionError && /newer than this vmhub/.test(err.message));
      await assert.rejects(store.createLease(lease('n1')), /newer than this vmhub/);
    });
  }
});

forDialects('store: leases', (d) => {
  it('createLease is idempotent by request_id and keeps tombstones', async () => {
    const store = await d.open('leases');
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

  it('request_id is unique per principal: the same id under another principal is another lease', async () => {
    const store = await d.open('per-principal');
    const alice = await store.createLease({ ...lease('pa', 'shared'), principal: 'alice' });
    const bob = await store.createLease({ ...lease('pb', 'shared'), principal: 'bob' });
    assert.equal(alice.created, true);
    assert.equal(bob.created, true, 'bob\'s request_id is his own');
    const retry = await store.createLease({ ...lease('pc', 'shared'), principal: 'alice' });
    assert.equal(retry.created, false);
    assert.equal(retry.lease.id, 'pa', 'alice\'s retry finds her lease');
    assert.equal((await store.getLeaseByRequest('shared', 'bob'))?.id, 'pb');
    assert.equal(await store.getLeaseByRequest('shared', 'carol'), undefined, 'nobody else finds either');
    await store.close();
  });

  it('transition only wins from the stated states', async () => {
    const store = await d.open('transition');
    await store.createLease(lease('x'));
    assert.equal((await store.transition('x', ['ready'], 'releasing')), undefined);
    assert.equal((await store.transition('x', ['provisioning'], 'starting'))?.status, 'starting');
    assert.equal((await store.transition('x', ['provisioning'], 'failed')), undefined);
    await store.close();
  });

  it('claims lapse and can be taken over', async () => {
    const store = await d.open('claims');
    await store.createLease(lease('c1'));
    const now = Date.now();
    assert.ok(await store.claim('c1', 'reaper-1', now + 60_000, ['provisioning']));
    assert.equal(await store.claim('c1', 'reaper-2', now + 60_000, ['provisioning']), undefined);
    await store.updateLease('c1', { claim_expires_at: now - 1 });
    assert.ok(await store.claim('c1', 'reaper-2', now + 60_000, ['provisioning']));
    await store.close();
  });

  it('machines and events round-trip', async () => {
    const store = await d.open('machines');
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
