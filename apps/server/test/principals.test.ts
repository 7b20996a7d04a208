// Two principals on one HTTP server, through the built binary: neither can touch the other's
// leases. Every lease-bound tool answers another principal's lease exactly as it answers an id
// that never existed (NOT_FOUND, nothing done, nothing recorded on it); request_id is an
// idempotency key per principal (bob reusing alice's gets a lease of his own, and no error names
// hers); the live API agrees with the tools; each recording step names its principal; and a
// warm pool's machine is bound by nobody until a create claims it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOLS, TOOL_NAMES } from '@vmhub/core';
import { POOL_PRINCIPAL, Store } from '@vmhub/store';
import { defaultTemplates, startHttp } from './harness.ts';
import { clientReady as ready, httpSuite } from './http-harness.ts';

const TOKENS = { alice: 'tok-alice-6f1e9b0c2d', bob: 'tok-bob-83a7d4e51f' };
type Result = { isError?: boolean; structuredContent?: any; content?: any[] };
const suite = httpSuite((box) => startHttp(box, { HOME: box.dir, VMHUB_LOG_LEVEL: 'info', VMHUB_AUDIT_FILE: `${box.dir}/audit.jsonl`, VMHUB_TOKEN_ALICE: TOKENS.alice, VMHUB_TOKEN_BOB: TOKENS.bob, VMHUB_TOOLSETS: 'all' }), {
  leases: { max_per_owner: 20, max_total: 50 },
  http: { tokens: [{ principal: 'alice', token_env: 'VMHUB_TOKEN_ALICE' }, { principal: 'bob', token_env: 'VMHUB_TOKEN_BOB' }] },
  pools: { 'fake-pooled': { min_ready: 1, max: 1 } },
  audit: { file: 'audit.jsonl' },
}, [...defaultTemplates(), { id: 'fake-pooled', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 50 } }]);
const client = (token: string) => suite.client(token, 'principals');
const call = (c: Client, name: string, args: Record<string, unknown> = {}) => c.callTool({ name, arguments: args }) as Promise<Result>;

async function api(token: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${suite.srv.base}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}) } });
}

async function withStore<T>(fn: (s: Store) => Promise<T>): Promise<T> {
  const s = new Store({ path: suite.box.db });
  try { return await fn(s); } finally { await s.close(); }
}

/** Valid arguments for every lease-bound tool (all of them act, were they allowed to). */
function argsFor(name: string, leaseId: string): Record<string, unknown> {
  const lease_id = leaseId;
  const table: Record<string, Record<string, unknown>> = {
    vm_capabilities: { lease_id },
    vm_lease_status: { lease_id, stats: true },
    vm_lease_renew: { lease_id, ttl_seconds: 600 },
    vm_lease_release: { lease_id },
    vm_lease_restart: { lease_id },
    vm_logs: { lease_id, source: 'session' },
    vm_snapshot: { lease_id, action: 'create' },
    vm_screenshot: { lease_id },
    vm_wait: { lease_id, for: 'settle', timeout_seconds: 1 },
    vm_find_text: { lease_id, text: 'hello' },
    vm_inspect: { lease_id },
    vm_list_windows: { lease_id },
    vm_focus: { lease_id, window: 'xterm' },
    vm_close: { lease_id, window: 'xterm' },
    vm_launch: { lease_id, app: 'xterm' },
    vm_click: { lease_id, x: 10, y: 10 },
    vm_type: { lease_id, text: 'typed-by-bob' },
    vm_key: { lease_id, keys: 'Return' },
    vm_paste: { lease_id, text: 'pasted-by-bob' },
    vm_get_clipboard: { lease_id },
    vm_drag: { lease_id, from: { x: 1, y: 1 }, to: { x: 5, y: 5 } },
    vm_scroll: { lease_id, x: 10, y: 10, direction: 'down' },
    vm_batch: { lease_id, actions: [{ action: 'type', text: 'batched-by-bob' }] },
    vm_dispatch: { lease_id, verb: 'echo', args: {} },
    vm_put_file: { lease_id, path: '/tmp/planted-by-bob', content: 'bob was here' },
    vm_get_file: { lease_id, path: '/etc/hostname' },
    vm_clone_repo: { lease_id, url: 'https://example.invalid/r.git' },
    vm_exec: { lease_id, command: ['sh', '-c', 'echo bob > /tmp/exec-by-bob'] },
  };
  const args = table[name];
  if (!args) throw new Error(`no example arguments for ${name}: add them (every tool taking lease_id is checked)`);
  return args;
}

/** The tools whose input names a lease. */
const LEASE_TOOLS = TOOL_NAMES.filter((n) => Object.hasOwn((TOOLS[n].input as { properties?: object }).properties ?? {}, 'lease_id'));

describe('principals cannot touch each other\'s leases (HTTP, two tokens)', () => {
  let alice: Client;
  let bob: Client;
  let hers = '';

  before(async () => {
    alice = await client(TOKENS.alice);
    bob = await client(TOKENS.bob);
    const r = await call(alice, 'vm_lease_create', { template: 'fake-desktop', request_id: 'shared-request' });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    hers = r.structuredContent.lease_id;
    await ready(alice, hers);
    // Alice's own step, so her recording exists before bob tries anything.
    assert.equal((await call(alice, 'vm_type', { lease_id: hers, text: 'alice typed' })).isError, undefined);
  });

  it('request_id is per principal: bob reusing alice\'s gets a lease of his own; no answer names hers', async () => {
    const same = await call(bob, 'vm_lease_create', { template: 'fake-desktop', request_id: 'shared-request' });
    assert.equal(same.isError, undefined, JSON.stringify(same.structuredContent));
    assert.notEqual(same.structuredContent.lease_id, hers, 'bob\'s create made his own lease');
    // Another template under her request_id: his own lease again, not ALREADY_EXISTS naming hers.
    const other = await call(bob, 'vm_lease_create', { template: 'fake-stub', request_id: 'shared-request-2' });
    await call(alice, 'vm_lease_create', { template: 'fake-desktop', request_id: 'shared-request-2' }).then((r) => call(alice, 'vm_lease_release', { lease_id: r.structuredContent.lease_id }));
    const again = await call(bob, 'vm_lease_create', { template: 'fake-stub', request_id: 'shared-request-2' });
    assert.equal(again.structuredContent.lease_id, other.structuredContent.lease_id, 'bob\'s retry finds his own lease');
    // Alice's retry still finds hers.
    assert.equal((await call(alice, 'vm_lease_create', { template: 'fake-desktop', request_id: 'shared-request' })).structuredContent.lease_id, hers);
    for (const r of [same, other, again]) assert.doesNotMatch(JSON.stringify(r), new RegExp(hers));
    for (const id of [same.structuredContent.lease_id, other.structuredContent.lease_id]) await call(bob, 'vm_lease_release', { lease_id: id });
  });

  it('every lease-bound tool answers bob on alice\'s lease exactly as on a lease that does not exist', async () => {
    assert.ok(LEASE_TOOLS.length >= 24, `lease-bound tools found: ${LEASE_TOOLS.join(', ')}`);
    const nobody = '00000000-0000-4000-8000-000000000000';
    for (const name of LEASE_TOOLS) {
      const theirs = await call(bob, name, argsFor(name, hers));
      const none = await call(bob, name, argsFor(name, nobody));
      assert.equal(theirs.isError, true, `${name} on alice's lease: ${JSON.stringify(theirs.structuredContent)}`);
      assert.equal(theirs.structuredContent.code, 'NOT_FOUND', `${name}: ${JSON.stringify(theirs.structuredContent)}`);
      assert.equal(JSON.stringify(theirs.structuredContent).replaceAll(hers, '<id>'), JSON.stringify(none.structuredContent).replaceAll(nobody, '<id>'), `${name}: the same answer as for an unknown lease`);
    }
    // Nothing happened to her lease or machine.
    const status = await call(alice, 'vm_lease_status', { lease_id: hers });
    assert.equal(status.structuredContent.status, 'ready');
    const planted = await call(alice, 'vm_get_file', { lease_id: hers, path: '/tmp/planted-by-bob' });
    assert.equal(planted.isError, true, 'bob\'s vm_put_file wrote nothing');
    const exec = await call(alice, 'vm_get_file', { lease_id: hers, path: '/tmp/exec-by-bob' });
    assert.equal(exec.isError, true, 'bob\'s vm_exec ran nothing');
    assert.deepEqual((await call(bob, 'vm_lease_list', {})).structuredContent.leases.map((l: any) => l.lease_id).filter((id: string) => id === hers), []);
  });

  it('the live API agrees with the tools; alice\'s recording holds only her steps, each naming her', async () => {
    assert.equal((await api(TOKENS.bob, `/api/leases/${hers}`)).status, 404);
    assert.equal((await api(TOKENS.bob, `/api/leases/${hers}/recording`)).status, 404);
    assert.equal((await api(TOKENS.bob, `/api/leases/${hers}/renew`, { method: 'POST', body: '{}' })).status, 404);
    const own = await api(TOKENS.alice, `/api/leases/${hers}/recording`);
    assert.equal(own.status, 200);
    const { steps } = await own.json() as { steps: { actor: string; principal?: string; tool: string; args: Record<string, unknown> }[] };
    assert.ok(steps.some((s) => s.tool === 'vm_type' && s.args.text === 'alice typed'), JSON.stringify(steps));
    for (const s of steps) assert.equal(s.principal, 'alice', `step ${s.tool} names its principal: ${JSON.stringify(s)}`);
    assert.doesNotMatch(JSON.stringify(steps.map((s) => ({ ...s, screenshot: undefined }))), /typed-by-bob|pasted-by-bob|batched-by-bob|bob was here|echo bob/, 'none of bob\'s calls is in her recording');
    // The audit file names the principal of every call (bob's refused ones included).
    const audit = readFileSync(`${suite.box.dir}/audit.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { principal: string; lease_id?: string; code?: string });
    assert.ok(audit.filter((a) => a.lease_id === hers && a.principal === 'bob').every((a) => a.code === 'NOT_FOUND'));
  });

  it('bob cannot renew or release her lease; she still can', async () => {
    const renew = await call(bob, 'vm_lease_renew', { lease_id: hers, ttl_seconds: 86_000 });
    assert.equal(renew.structuredContent.code, 'NOT_FOUND');
    const release = await call(bob, 'vm_lease_release', { lease_id: hers });
    assert.equal(release.structuredContent.code, 'NOT_FOUND');
    assert.equal((await call(alice, 'vm_lease_status', { lease_id: hers })).structuredContent.status, 'ready');
    assert.equal((await call(alice, 'vm_lease_renew', { lease_id: hers, ttl_seconds: 900 })).isError, undefined);
  });

  it('a warm pool\'s machine is bound by nobody until claimed; the claimer gets it clean', async () => {
    let pooled: string | undefined;
    for (let i = 0; i < 100 && !pooled; i++) {
      pooled = (await withStore((s) => s.listLeases({ principal: POOL_PRINCIPAL, status: ['ready'] })))[0]?.id;
      if (!pooled) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(pooled, 'the pool made a ready machine');
    for (const c of [alice, bob]) {
      for (const name of ['vm_put_file', 'vm_exec', 'vm_lease_release', 'vm_lease_renew', 'vm_screenshot']) {
        const r = await call(c, name, argsFor(name, pooled));
        assert.equal(r.structuredContent.code, 'NOT_FOUND', `${name} on an unclaimed pool machine: ${JSON.stringify(r.structuredContent)}`);
      }
    }
    const claimed = await call(bob, 'vm_lease_create', { template: 'fake-pooled' });
    assert.equal(claimed.structuredContent.lease_id, pooled, 'bob\'s create claimed the pool machine');
    const planted = await call(bob, 'vm_get_file', { lease_id: pooled, path: '/tmp/planted-by-bob' });
    assert.equal(planted.isError, true, 'nothing was planted in it before the claim');
    assert.equal((await call(alice, 'vm_screenshot', { lease_id: pooled })).structuredContent.code, 'NOT_FOUND', 'claimed, it is bob\'s alone');
    assert.equal((await call(bob, 'vm_screenshot', { lease_id: pooled })).isError, undefined);
    await call(bob, 'vm_lease_release', { lease_id: pooled });
  });
});
