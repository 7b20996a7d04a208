// Workspaces and principals, over HTTP through the BUILT server (Docker debian-x11 and the
// conformance fake). A workspace name is its principal's own: bob asking for "proj" while alice's
// "proj" is attached gets a workspace of his own (another volume, none of her files), never
// LOCK_CONTENTION naming her lease and never her volume. Bad input changes nothing: names outside
// [a-z0-9][a-z0-9._-]{0,62} (INVALID_REQUEST), a template whose provider has no workspaces
// (CAPABILITY_UNAVAILABLE with the reason), workspace with snapshot_id (INVALID_REQUEST), a new
// workspace past workspaces.max_per_principal (QUOTA_EXCEEDED naming it); a create past
// leases.max_per_owner is refused before any workspace is made. The dashboard's
// /api/workspaces lists only the signed-in principal's; deleting one needs a browser sign-in (a
// bearer token, what an agent holds, is POLICY_DENIED), and another principal's is NOT_FOUND.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { Store } from '@vmhub/store';
import { defaultTemplates, startHttp, uiSignIn, until } from './harness.ts';
import { httpAgent, httpSuite, type HttpAgent } from './http-harness.ts';

const run = promisify(execFile);
const TOKENS = { alice: 'tok-alice-ws-71c2e9', bob: 'tok-bob-ws-0d4f83' };
const suite = httpSuite((box) => startHttp(box, { HOME: box.dir, VMHUB_TOKEN_ALICE: TOKENS.alice, VMHUB_TOKEN_BOB: TOKENS.bob }), {
  http: { tokens: [{ principal: 'alice', token_env: 'VMHUB_TOKEN_ALICE' }, { principal: 'bob', token_env: 'VMHUB_TOKEN_BOB' }] },
  workspaces: { max_per_principal: 2 },
  leases: { max_per_owner: 2 },
}, defaultTemplates());
const leases: { agent: HttpAgent; id: string }[] = [];

async function ready(agent: HttpAgent, args: Record<string, unknown>): Promise<string> {
  const r = await agent.call('vm_lease_create', args);
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  leases.push({ agent, id: r.structuredContent.lease_id });
  await until(async () => (await agent.call('vm_lease_status', { lease_id: r.structuredContent.lease_id, wait_seconds: 5 })).structuredContent?.status === 'ready', 'the lease to be ready', 120_000);
  return r.structuredContent.lease_id;
}

async function workspaces(): Promise<{ principal: string; name: string; identity: string }[]> {
  const store = new Store({ path: suite.box.db });
  try { return await store.listWorkspaces(); } finally { await store.close(); }
}

after(async () => {
  for (const { agent, id } of leases) await agent.call('vm_lease_release', { lease_id: id }).catch(() => undefined);
  await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${suite.box.instance}-) 2>/dev/null; docker volume rm -f $(docker volume ls -q --filter label=vmhub.instance=${suite.box.instance}) 2>/dev/null; true`]);
});

describe('workspaces: each principal\'s own; bad input changes nothing', () => {
  it('bob\'s "proj" is not alice\'s: another volume, none of her files, no contention with her lease', async () => {
    const alice = await httpAgent(suite.srv, TOKENS.alice);
    const bob = await httpAgent(suite.srv, TOKENS.bob);
    const a = await ready(alice, { template: 'debian-x11', workspace: 'proj' });
    assert.equal((await alice.call('vm_exec', { lease_id: a, shell: 'echo alice > ~/secret.txt' })).structuredContent.exit_code, 0);
    const b = await ready(bob, { template: 'debian-x11', workspace: 'proj' });
    const bobs = await ready(bob, { template: 'debian-x11', workspace: 'bobs' });
    // At leases.max_per_owner (2) the lease is refused before any workspace is found or made.
    const over = await bob.call('vm_lease_create', { template: 'debian-x11', workspace: 'spare' });
    assert.equal(over.structuredContent.code, 'QUOTA_EXCEEDED');
    assert.match(over.structuredContent.message, /already holds 2 live leases/);
    await bob.call('vm_lease_release', { lease_id: bobs });
    const seen = await bob.call('vm_exec', { lease_id: b, shell: 'cat ~/secret.txt' });
    assert.notEqual(seen.structuredContent.exit_code, 0, 'bob does not see alice\'s file');
    assert.match(seen.structuredContent.stderr, /No such file/);
    const rows = await workspaces();
    assert.deepEqual(rows.map((w) => `${w.principal}/${w.name}`), ['alice/proj', 'bob/bobs', 'bob/proj']);
    assert.notEqual(rows[0]!.identity, rows[2]!.identity);
    // A lease id of alice's never appears in what bob is told.
    const third = await bob.call('vm_lease_create', { template: 'debian-x11', workspace: 'proj' });
    assert.equal(third.structuredContent.code, 'LOCK_CONTENTION');
    assert.match(third.structuredContent.message, new RegExp(b));
    assert.doesNotMatch(JSON.stringify(third.structuredContent), new RegExp(a));
  });

  it('bad names, a provider without workspaces, a fork with one: refused, nothing made', async () => {
    const alice = await httpAgent(suite.srv, TOKENS.alice);
    const before = await workspaces();
    for (const name of ['UPPER', '.dot', 'sp ace', 'x'.repeat(64), 'a/b', '']) {
      const r = await alice.call('vm_lease_create', { template: 'debian-x11', workspace: name });
      assert.equal(r.structuredContent.code, 'INVALID_REQUEST', `${JSON.stringify(name)} → ${JSON.stringify(r.structuredContent)}`);
    }
    const fake = await alice.call('vm_lease_create', { template: 'fake-desktop', workspace: 'other' });
    assert.equal(fake.structuredContent.code, 'CAPABILITY_UNAVAILABLE');
    assert.match(fake.structuredContent.message, /template fake-desktop cannot take a workspace: provider "fake" has no workspaces/);
    const caps = (await alice.call('vm_capabilities', { template: 'fake-desktop' })).structuredContent;
    assert.deepEqual(caps.unavailable.filter((u: { capability: string }) => u.capability === 'workspace'), [{ capability: 'workspace', reason: 'provider "fake" has no workspaces' }]);
    const x11 = (await alice.call('vm_capabilities', { template: 'debian-x11' })).structuredContent;
    assert.equal(x11.unavailable.some((u: { capability: string }) => u.capability === 'workspace'), false);
    const fork = await alice.call('vm_lease_create', { snapshot_id: 'x', workspace: 'other' });
    assert.equal(fork.structuredContent.code, 'INVALID_REQUEST');
    assert.deepEqual(await workspaces(), before);
    const live = (await alice.call('vm_lease_list', { status: 'live' })).structuredContent.leases.length;
    assert.equal(live, 1, 'no lease was made');
  });

  it('a new workspace past workspaces.max_per_principal is QUOTA_EXCEEDED naming it; attaching an existing one is not', async () => {
    const alice = await httpAgent(suite.srv, TOKENS.alice);
    const second = await ready(alice, { template: 'debian-x11', workspace: 'second' });
    await alice.call('vm_lease_release', { lease_id: second });
    const third = await alice.call('vm_lease_create', { template: 'debian-x11', workspace: 'third' });
    assert.equal(third.structuredContent.code, 'QUOTA_EXCEEDED');
    assert.match(third.structuredContent.message, /workspaces\.max_per_principal: 2/);
    assert.equal((await workspaces()).filter((w) => w.principal === 'alice').length, 2);
    await ready(alice, { template: 'debian-x11', workspace: 'second' });
  });

  it('the dashboard lists only the principal\'s own; a bearer token cannot delete; a signed-in person can, unless a lease holds it', async () => {
    const base = suite.srv.base;
    const bearer = { Authorization: `Bearer ${TOKENS.alice}` };
    const list = await (await fetch(`${base}/api/workspaces`, { headers: bearer })).json() as { workspaces: { name: string }[] };
    assert.deepEqual(list.workspaces.map((w) => w.name).sort(), ['proj', 'second']);
    const byToken = await fetch(`${base}/api/workspaces/proj/delete`, { method: 'POST', headers: bearer });
    assert.equal(byToken.status, 403);
    assert.equal(((await byToken.json()) as { error: { code: string } }).error.code, 'POLICY_DENIED');
    const signIn = await uiSignIn(base, TOKENS.alice);
    const person = { Cookie: signIn.cookie, Origin: base, 'Sec-Fetch-Site': 'same-origin' };
    const bobs = await fetch(`${base}/api/workspaces/bobs/delete`, { method: 'POST', headers: person });
    assert.equal(bobs.status, 404, 'bob\'s workspace is not alice\'s to see');
    const heldRes = await fetch(`${base}/api/workspaces/second/delete`, { method: 'POST', headers: person });
    assert.equal(heldRes.status, 409);
    assert.equal(((await heldRes.json()) as { error: { code: string } }).error.code, 'LOCK_CONTENTION');
    const alice = await httpAgent(suite.srv, TOKENS.alice);
    for (const l of (await alice.call('vm_lease_list', { status: 'live' })).structuredContent.leases) await alice.call('vm_lease_release', { lease_id: l.lease_id });
    const volume = (await workspaces()).find((w) => w.principal === 'alice' && w.name === 'proj')!.identity;
    const done = await fetch(`${base}/api/workspaces/proj/delete`, { method: 'POST', headers: person });
    assert.equal(done.status, 200, await done.clone().text());
    assert.equal(((await done.json()) as { deleted: string }).deleted, 'destroyed');
    assert.equal(await run('docker', ['volume', 'inspect', volume]).then(() => 'there', () => 'gone'), 'gone');
    assert.deepEqual((await workspaces()).map((w) => `${w.principal}/${w.name}`), ['alice/second', 'bob/bobs', 'bob/proj']);
  });
});
