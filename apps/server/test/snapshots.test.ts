// Snapshots end to end through the BUILT server over HTTP, two principals, on the conformance
// fake provider (its machines' files copied and put back, read in the guest through the tools):
// vm_snapshot create / restore / list / delete and forks through vm_lease_create {snapshot_id,
// count}; a restore refused while a person holds the lease; the capability matrix; another
// principal's snapshot answered exactly as an unknown one;
// bad input refused with typed errors and nothing changed; quotas naming their limit; vm_health.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readFakeLedger, RESTORED_MARK } from '@vmhub/conformance/fake';
import { Store } from '@vmhub/store';
import { defaultTemplates, startHttp } from './harness.ts';
import { clientReady as ready, httpSuite } from './http-harness.ts';

const TOKENS = { alice: 'tok-alice-5b2c9e1f7a', bob: 'tok-bob-0d4e8a6c3b' };
type Result = { isError?: boolean; structuredContent?: any };
const fake = (id: string, options: Record<string, unknown> = {}) => ({ id, provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 50, ...options } });
const suite = httpSuite((box) => startHttp(box, { HOME: box.dir, VMHUB_TOKEN_ALICE: TOKENS.alice, VMHUB_TOKEN_BOB: TOKENS.bob, VMHUB_TOOLSETS: 'all' }), {
  leases: { max_per_owner: 20, max_total: 50 },
  snapshots: { max_per_principal: 4 },
  http: { tokens: [{ principal: 'alice', token_env: 'VMHUB_TOKEN_ALICE' }, { principal: 'bob', token_env: 'VMHUB_TOKEN_BOB' }] },
}, [...defaultTemplates(), fake('fake-other'), fake('fake-nosnap', { snapshots: false }), fake('fake-slowish', { ready_delay_ms: 4000 })]);
const call = (c: Client, name: string, args: Record<string, unknown> = {}) => c.callTool({ name, arguments: args }) as Promise<Result>;

async function ok(c: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(c, name, args);
  assert.equal(r.isError, undefined, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
}

async function refused(c: Client, name: string, args: Record<string, unknown>, code: string, message?: RegExp): Promise<any> {
  const r = await call(c, name, args);
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} should fail`);
  assert.equal(r.structuredContent.code, code, JSON.stringify(r.structuredContent));
  if (message) assert.match(r.structuredContent.message, message);
  return r.structuredContent;
}

async function lease(c: Client, template: string): Promise<string> {
  const id = (await ok(c, 'vm_lease_create', { template })).lease_id as string;
  await ready(c, id);
  return id;
}

const read = async (c: Client, leaseId: string, path: string) => (await ok(c, 'vm_get_file', { lease_id: leaseId, path })).content as string;
const put = (c: Client, leaseId: string, path: string, content: string) => ok(c, 'vm_put_file', { lease_id: leaseId, path, content });

async function withStore<T>(fn: (s: Store) => Promise<T>): Promise<T> {
  const s = new Store({ path: suite.box.db });
  try { return await fn(s); } finally { await s.close(); }
}

describe('snapshots: create, restore, list, delete and fork over HTTP, two principals', () => {
  let alice: Client;
  let bob: Client;
  let mine = '';
  let hers = '';
  let snap = '';

  before(async () => {
    alice = await suite.client(TOKENS.alice, 'snapshots');
    bob = await suite.client(TOKENS.bob, 'snapshots');
    [hers, mine] = await Promise.all([lease(alice, 'fake-desktop'), lease(bob, 'fake-desktop')]);
  });

  it('the capability matrix says snapshot {memory: false} on the fake, and why not where a template has none', async () => {
    const caps = await ok(alice, 'vm_capabilities', { template: 'fake-desktop' });
    assert.deepEqual(caps.snapshot, { memory: false });
    assert.ok(!caps.unavailable.some((u: any) => u.capability === 'snapshot'));
    const none = await ok(alice, 'vm_capabilities', { template: 'fake-nosnap' });
    assert.equal(none.snapshot, undefined);
    assert.match(none.unavailable.find((u: any) => u.capability === 'snapshot')?.reason ?? '', /provider_options\.snapshots = false/);
    assert.deepEqual((await ok(alice, 'vm_capabilities', { lease_id: hers })).snapshot, { memory: false });
  });

  it('create, then restore: files go back, the lease keeps its id and expiry, its screen mapping is reset, the adapter hears of it first', async () => {
    await put(alice, hers, '/home/user/a.txt', 'one');
    const made = (await ok(alice, 'vm_snapshot', { action: 'create', lease_id: hers, name: 'first' })).snapshots;
    assert.equal(made.length, 1);
    snap = made[0].snapshot_id;
    assert.equal(made[0].name, 'first');
    assert.equal(made[0].lease_id, hers);
    assert.equal(made[0].template, 'fake-desktop');
    assert.equal(made[0].memory, false);
    assert.ok(made[0].size_bytes > 0, `size_bytes ${made[0].size_bytes}`);
    assert.equal(Date.parse(made[0].expires_at) - Date.parse(made[0].created_at), 24 * 3_600_000, 'kept snapshots.keep_hours (24)');

    await put(alice, hers, '/home/user/a.txt', 'two');
    await put(alice, hers, '/home/user/b.txt', 'made after the snapshot');
    // A changed_only baseline: the same screen again is "nothing changed" (bytes 0).
    await ok(alice, 'vm_screenshot', { lease_id: hers, changed_only: true });
    assert.equal((await ok(alice, 'vm_screenshot', { lease_id: hers, changed_only: true })).bytes, 0);
    const before = await ok(alice, 'vm_lease_status', { lease_id: hers });
    // A person holding the lease (the live view's take-over) refuses the restore; nothing changed.
    await withStore((s) => s.takeover(hers, 'alice', { allowCommandsAndFiles: true }));
    await refused(alice, 'vm_snapshot', { action: 'restore', lease_id: hers, snapshot_id: snap }, 'HUMAN_CONTROL', /nothing was done/);
    assert.equal(await read(alice, hers, '/home/user/b.txt'), 'made after the snapshot');
    await withStore((s) => s.handback(hers));
    const restored = (await ok(alice, 'vm_snapshot', { action: 'restore', lease_id: hers, snapshot_id: snap })).snapshots;
    assert.equal(restored[0].snapshot_id, snap);
    assert.equal(await read(alice, hers, RESTORED_MARK), '1\n', 'the adapter session was told before the next call');
    // The screen mapping was reset: the next changed_only screenshot is the whole screen again.
    const whole = await ok(alice, 'vm_screenshot', { lease_id: hers, changed_only: true });
    assert.ok(whole.bytes > 0 && whole.width === whole.screen.width && whole.origin.x === 0 && whole.origin.y === 0, JSON.stringify(whole));
    assert.equal(await read(alice, hers, '/home/user/a.txt'), 'one');
    await refused(alice, 'vm_get_file', { lease_id: hers, path: '/home/user/b.txt' }, 'NOT_FOUND');
    const after = await ok(alice, 'vm_lease_status', { lease_id: hers });
    assert.deepEqual([after.lease_id, after.status, after.expires_at], [hers, 'ready', before.expires_at]);
    const kinds = await withStore(async (s) => (await s.listEvents({ lease_id: hers })).map((e) => e.kind));
    assert.ok(kinds.includes('snapshot.created') && kinds.includes('snapshot.restored'), kinds.join(', '));
  });

  it('another principal\'s snapshot is NOT_FOUND exactly as an unknown id, on every action and on fork', async () => {
    assert.deepEqual((await ok(alice, 'vm_snapshot', { action: 'list' })).snapshots.map((s: any) => s.snapshot_id), [snap]);
    assert.deepEqual((await ok(alice, 'vm_snapshot', { action: 'list', lease_id: hers })).snapshots.map((s: any) => s.snapshot_id), [snap]);
    assert.deepEqual((await ok(bob, 'vm_snapshot', { action: 'list' })).snapshots, []);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const same = async (args: (id: string) => Record<string, unknown>, tool = 'vm_snapshot') => {
      const theirs = await refused(bob, tool, args(snap), 'NOT_FOUND');
      const none = await refused(bob, tool, args(unknown), 'NOT_FOUND');
      assert.equal(JSON.stringify(theirs).replaceAll(snap, '<id>'), JSON.stringify(none).replaceAll(unknown, '<id>'), `${tool} ${JSON.stringify(args('<id>'))}`);
    };
    await same((id) => ({ action: 'restore', lease_id: mine, snapshot_id: id }));
    await same((id) => ({ action: 'delete', snapshot_id: id }));
    await same((id) => ({ snapshot_id: id }), 'vm_lease_create');
    await same((id) => ({ snapshot_id: id, count: 2 }), 'vm_lease_create');
    await refused(bob, 'vm_snapshot', { action: 'list', lease_id: hers }, 'NOT_FOUND');
    await refused(bob, 'vm_snapshot', { action: 'create', lease_id: hers }, 'NOT_FOUND');
    // Nothing happened: hers is still listed, bob has no lease from it, his machine was not restored.
    assert.deepEqual((await ok(alice, 'vm_snapshot', { action: 'list' })).snapshots.map((s: any) => s.snapshot_id), [snap]);
    assert.equal((await ok(bob, 'vm_lease_list', { status: 'live' })).leases.length, 1);
    await refused(bob, 'vm_get_file', { lease_id: mine, path: '/home/user/a.txt' }, 'NOT_FOUND');
  });

  it('fork ×3: each starts from the snapshot with its own machine-id and diverges; the same request_id finds the same leases', async () => {
    const forked = await ok(alice, 'vm_lease_create', { snapshot_id: snap, count: 3, request_id: 'fork-a' });
    assert.equal(forked.lease_ids.length, 3);
    assert.equal(forked.lease_id, forked.lease_ids[0]);
    assert.equal(forked.template, 'fake-desktop');
    assert.deepEqual((await ok(alice, 'vm_lease_create', { snapshot_id: snap, count: 3, request_id: 'fork-a' })).lease_ids, forked.lease_ids, 'a retry makes nothing new');
    for (const id of forked.lease_ids) await ready(alice, id);
    const ids: string[] = [];
    for (const id of forked.lease_ids) {
      assert.equal(await read(alice, id, '/home/user/a.txt'), 'one', 'the snapshot\'s file');
      ids.push(await read(alice, id, '/etc/machine-id'));
    }
    assert.equal(new Set(ids).size, 3, `machine-ids differ: ${ids.join(' ')}`);
    await put(alice, forked.lease_ids[0], '/home/user/mine.txt', 'fork 0 only');
    await refused(alice, 'vm_get_file', { lease_id: forked.lease_ids[1], path: '/home/user/mine.txt' }, 'NOT_FOUND');
    await refused(alice, 'vm_get_file', { lease_id: hers, path: '/home/user/mine.txt' }, 'NOT_FOUND');
    const created = await withStore((s) => s.listEvents({ lease_id: forked.lease_ids[2], kind: 'lease.created' }));
    assert.equal(JSON.parse(created[0]!.data).from_snapshot, snap);
    for (const id of forked.lease_ids) assert.equal((await ok(alice, 'vm_lease_release', { lease_id: id })).status, 'released');
  });

  it('bad input: typed errors, and nothing changed', async () => {
    const other = await lease(alice, 'fake-other');
    await put(alice, other, '/home/user/keep.txt', 'kept');
    await refused(alice, 'vm_lease_create', { snapshot_id: snap, count: 9 }, 'INVALID_REQUEST');
    await refused(alice, 'vm_lease_create', { snapshot_id: snap, count: 0 }, 'INVALID_REQUEST');
    await refused(alice, 'vm_lease_create', { template: 'fake-desktop', snapshot_id: snap }, 'INVALID_REQUEST', /not given with snapshot_id/);
    await refused(alice, 'vm_lease_create', { template: 'fake-desktop', count: 2 }, 'INVALID_REQUEST', /goes with snapshot_id/);
    await refused(alice, 'vm_lease_create', {}, 'INVALID_REQUEST', /missing field "template"/);
    await refused(alice, 'vm_snapshot', { action: 'restore', lease_id: hers }, 'INVALID_REQUEST', /missing field "snapshot_id"/);
    await refused(alice, 'vm_snapshot', { action: 'create' }, 'INVALID_REQUEST', /missing field "lease_id"/);
    await refused(alice, 'vm_snapshot', { action: 'delete', snapshot_id: snap, name: 'x' }, 'INVALID_REQUEST', /"name"/);
    await refused(alice, 'vm_snapshot', { action: 'restore', lease_id: hers, snapshot_id: 'no-such-snapshot' }, 'NOT_FOUND', /no snapshot "no-such-snapshot"/);
    await refused(alice, 'vm_snapshot', { action: 'restore', lease_id: other, snapshot_id: snap }, 'INVALID_REQUEST', /template fake-desktop; lease .* is of template fake-other/);
    assert.equal(await read(alice, other, '/home/user/keep.txt'), 'kept', 'the other lease was not touched');
    const slow = (await ok(alice, 'vm_lease_create', { template: 'fake-slowish' })).lease_id;
    await refused(alice, 'vm_snapshot', { action: 'create', lease_id: slow }, 'LEASE_NOT_READY');
    const nosnap = await lease(alice, 'fake-nosnap');
    await refused(alice, 'vm_snapshot', { action: 'create', lease_id: nosnap }, 'CAPABILITY_UNAVAILABLE', /provider_options\.snapshots = false/);
    assert.deepEqual((await ok(alice, 'vm_snapshot', { action: 'list' })).snapshots.map((s: any) => s.snapshot_id), [snap], 'no snapshot was made');
    for (const id of [other, slow, nosnap]) await ok(alice, 'vm_lease_release', { lease_id: id });
  });

  it('a snapshot outlives its lease; the quota names its limit; vm_health shows the disk; delete goes through the provider by identity', async () => {
    assert.equal((await ok(alice, 'vm_lease_release', { lease_id: hers })).status, 'released');
    assert.deepEqual((await ok(alice, 'vm_snapshot', { action: 'list', lease_id: hers })).snapshots.map((s: any) => s.snapshot_id), [snap], 'kept past its lease');
    const again = await ok(alice, 'vm_lease_create', { snapshot_id: snap });
    await ready(alice, again.lease_id);
    assert.equal(await read(alice, again.lease_id, '/home/user/a.txt'), 'one');
    for (let i = 0; i < 3; i++) await ok(alice, 'vm_snapshot', { action: 'create', lease_id: again.lease_id });
    await refused(alice, 'vm_snapshot', { action: 'create', lease_id: again.lease_id }, 'QUOTA_EXCEEDED', /snapshots\.max_per_principal = 4/);
    // Bob's quota is his own.
    await ok(bob, 'vm_snapshot', { action: 'create', lease_id: mine });
    const health = await ok(alice, 'vm_health');
    assert.equal(health.snapshots.count, 5);
    assert.ok(health.snapshots.bytes > 0);
    assert.equal(health.snapshots.max_bytes, 20 * 1024 ** 3);

    const row = await withStore(async (s) => (await s.getSnapshot(snap))!);
    assert.equal(row.identity, `vmhub-${suite.box.instance}-snap-${snap}`);
    assert.equal((await ok(alice, 'vm_snapshot', { action: 'delete', snapshot_id: snap })).snapshots[0].snapshot_id, snap);
    await refused(alice, 'vm_snapshot', { action: 'delete', snapshot_id: snap }, 'NOT_FOUND');
    assert.ok(!(await ok(alice, 'vm_snapshot', { action: 'list' })).snapshots.some((s: any) => s.snapshot_id === snap));
    const deletes = (await readFakeLedger(suite.box.fakeDir)).filter((e) => e.op === 'delete_snapshot' && e.identity === row.identity);
    assert.equal(deletes.length, 1, 'deleted once, by its identity');
    const after = await withStore(async (s) => (await s.getSnapshot(snap))!);
    assert.deepEqual([after.state, after.outcome], ['deleted', 'destroyed']);
    assert.equal((await ok(alice, 'vm_health')).snapshots.count, 4);
    await ok(alice, 'vm_lease_release', { lease_id: again.lease_id });
  });

  it('creates at the same moment never pass the quota: at most one fills the last place, the others stand down typed', async () => {
    const listed = async () => (await ok(alice, 'vm_snapshot', { action: 'list' })).snapshots.length as number;
    assert.equal(await listed(), 3, 'one place left under snapshots.max_per_principal = 4');
    const leases = await Promise.all([0, 1, 2, 3].map(() => lease(alice, 'fake-desktop')));
    const answers = await Promise.all(leases.map((id) => call(alice, 'vm_snapshot', { action: 'create', lease_id: id })));
    const made = answers.filter((r) => !r.isError).length;
    const codes = answers.filter((r) => r.isError).map((r) => r.structuredContent.code as string);
    assert.ok(made <= 1, `${made} of 4 concurrent creates were kept`);
    assert.ok(codes.every((c) => c === 'QUOTA_EXCEEDED' || c === 'LOCK_CONTENTION'), codes.join(' '));
    assert.equal(await listed(), 3 + made, 'the list holds exactly what was answered as made');
    assert.ok(await listed() <= 4);
    // Room again after a refusal: a retry fills the place when none was kept.
    if (made === 0) await ok(alice, 'vm_snapshot', { action: 'create', lease_id: leases[0] });
    assert.equal(await listed(), 4);
    for (const id of leases) await ok(alice, 'vm_lease_release', { lease_id: id });
  });
});
