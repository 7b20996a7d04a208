// Workspaces on both dialects: one row per (principal, name); attached to a lease in the same
// transaction as the lease's insert — of concurrent creates asking for one free workspace exactly
// one gets it, the others WorkspaceHeldError naming the holder and no lease at all; held while the
// holder lease is live, or ended with its machine not yet destroyed; free once the machine row is
// settled, whoever ended the lease; a deletion begins only while it is free, and goes with its event.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import { Store } from './store.ts';
import { WorkspaceHeldError } from './workspaces.ts';

let n = 0;

function newLease(principal = 'alice') {
  const id = `w${++n}-${Math.random().toString(16).slice(2, 8)}`;
  const now = Date.now();
  return { id, principal, request_id: `r-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status: 'provisioning' as const, identity: `vmhub-test-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null };
}

forDialects('store: workspaces', (d) => {
  let store: Store;
  before(async () => { store = await d.open('workspaces'); });

  it('one row per principal and name; another principal\'s same name is another workspace', async () => {
    const now = Date.now();
    const a = await store.addWorkspace({ id: 'ws-a', principal: 'alice', name: 'proj', provider: 'fake', identity: 'vmhub-test-ws-a', template: 't', path: '/home/user', created_at: now }, 'test');
    assert.equal(a.created, true);
    const again = await store.addWorkspace({ id: 'ws-a2', principal: 'alice', name: 'proj', provider: 'fake', identity: 'vmhub-test-ws-a2', template: 't', path: '/home/user', created_at: now }, 'test');
    assert.deepEqual([again.created, again.workspace.id], [false, 'ws-a']);
    await store.addWorkspace({ id: 'ws-b', principal: 'bob', name: 'proj', provider: 'fake', identity: 'vmhub-test-ws-b', template: 't', path: '/home/user', created_at: now }, 'test');
    assert.deepEqual((await store.listWorkspaces('alice')).map((w) => w.id), ['ws-a']);
    assert.equal((await store.getWorkspace('bob', 'proj'))?.id, 'ws-b');
    assert.deepEqual(await store.workspaceUsage('alice'), { count: 1, bytes: 0 });
    await store.setWorkspaceBytes('ws-a', 6 * 1024 ** 3);
    assert.deepEqual(await store.workspaceUsage('alice'), { count: 1, bytes: 6 * 1024 ** 3 }, 'BIGINT bytes come back as numbers');
  });

  it('concurrent creates asking for a free workspace: one lease holds it, the others are refused and made nothing', async () => {
    const leases = Array.from({ length: 6 }, () => newLease());
    const results = await Promise.allSettled(leases.map((l) => store.createLease(l, { event: { actor: 'test' }, workspace: 'ws-a' })));
    const won = results.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status === 'rejected' ? String(r.reason) : 'ok')));
    const holder = (won[0] as PromiseFulfilledResult<{ lease: { id: string } }>).value.lease.id;
    for (const r of results) if (r.status === 'rejected') {
      assert.ok(r.reason instanceof WorkspaceHeldError, String(r.reason));
      assert.equal(r.reason.holder, holder);
    }
    for (const l of leases) if (l.id !== holder) assert.equal(await store.getLease(l.id), undefined, 'a refused create made no lease');
    assert.equal((await store.getWorkspace('alice', 'proj'))?.holder_lease, holder);
    // The holder ends (failed) with its machine still there: held; the machine destroyed: free.
    await store.putMachine({ lease_id: holder, identity: `vmhub-test-${holder}`, provider: 'fake', external_id: 'x', node: null, state: 'running', details: '{}' });
    await store.transition(holder, ['provisioning'], 'failed');
    assert.equal((await store.getWorkspace('alice', 'proj'))?.holder_lease, holder, 'held until its machine is destroyed');
    await assert.rejects(store.createLease(newLease(), { workspace: 'ws-a' }), WorkspaceHeldError);
    await assert.rejects(store.beginWorkspaceDelete('ws-a'), WorkspaceHeldError);
    await store.putMachine({ lease_id: holder, identity: `vmhub-test-${holder}`, provider: 'fake', external_id: 'x', node: null, state: 'destroyed', details: '{}' });
    assert.equal((await store.getWorkspace('alice', 'proj'))?.holder_lease, undefined, 'free once the machine is destroyed');
    const next = newLease();
    await store.createLease(next, { workspace: 'ws-a' });
    assert.equal((await store.getWorkspace('alice', 'proj'))?.holder_lease, next.id);
    await store.transition(next.id, ['provisioning'], 'releasing');
    await store.transition(next.id, ['releasing'], 'released');
    assert.equal((await store.getWorkspace('alice', 'proj'))?.holder_lease, undefined, 'a lease with no machine row frees it when it ends');
  });

  it('a deletion begins only while free; a deleting workspace cannot be attached; done, the row goes with its event', async () => {
    const begun = await store.beginWorkspaceDelete('ws-a');
    assert.equal(begun?.state, 'deleting');
    const refused = await store.createLease(newLease(), { workspace: 'ws-a' }).catch((e: unknown) => e);
    assert.ok(refused instanceof WorkspaceHeldError && refused.holder === undefined, String(refused));
    await store.workspaceDeleteFailed('ws-a');
    assert.equal((await store.getWorkspace('alice', 'proj'))?.state, 'ready', 'a failed deletion leaves it ready');
    await store.beginWorkspaceDelete('ws-a');
    await store.workspaceDeleted('ws-a', 'cli:test', 'destroyed');
    assert.equal(await store.getWorkspace('alice', 'proj'), undefined);
    const [event] = await store.listEvents({ kind: 'workspace.deleted' });
    assert.deepEqual([event?.actor, (JSON.parse(String(event?.data)) as { outcome: string }).outcome], ['cli:test', 'destroyed']);
  });
});
