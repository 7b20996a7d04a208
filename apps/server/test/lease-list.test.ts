// vm_lease_list through the built server over HTTP, with one named token per principal: each
// principal sees only its own leases — whatever owner labels either of them wrote — newest first,
// filtered by owner label and status, capped at 100 with `truncated`.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { compile, describeErrors, TOOLS } from '@vmhub/core';
import { startHttp } from './harness.ts';
import { clientReady as ready, httpSuite } from './http-harness.ts';

const TOKENS = { ci: 'tok-list-ci-51b7e0', ops: 'tok-list-ops-93d1aa', bulk: 'tok-list-bulk-0c62f4' };
type Result = { isError?: boolean; structuredContent?: any };
const suite = httpSuite((box) => startHttp(box, { HOME: box.dir, VMHUB_LOG_LEVEL: 'info', VMHUB_TOKEN_CI: TOKENS.ci, VMHUB_TOKEN_OPS: TOKENS.ops, VMHUB_TOKEN_BULK: TOKENS.bulk }), {
  leases: { max_per_owner: 150, max_total: 500 },
  http: { tokens: [{ principal: 'ci-agent', token_env: 'VMHUB_TOKEN_CI' }, { principal: 'ops', token_env: 'VMHUB_TOKEN_OPS' }, { principal: 'bulk', token_env: 'VMHUB_TOKEN_BULK' }] },
});
const client = (token: string) => suite.client(token, 'list');
const call = (c: Client, name: string, args: Record<string, unknown> = {}) => c.callTool({ name, arguments: args }) as Promise<Result>;
const checkList = compile(TOOLS.vm_lease_list.output);

async function list(c: Client, args: Record<string, unknown> = {}): Promise<{ leases: any[]; truncated: boolean }> {
  const r = await call(c, 'vm_lease_list', args);
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  assert.ok(checkList(r.structuredContent), `vm_lease_list output matches its schema: ${describeErrors(checkList.errors ?? [])}`);
  return r.structuredContent as { leases: any[]; truncated: boolean };
}

async function create(c: Client, owner: string, template = 'fake-desktop'): Promise<string> {
  const r = await call(c, 'vm_lease_create', { template, owner });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  return r.structuredContent.lease_id;
}

describe('server: vm_lease_list', () => {
  let ci: Client;
  let ops: Client;
  const mine: string[] = [];
  const theirs: string[] = [];

  before(async () => {
    ci = await client(TOKENS.ci);
    ops = await client(TOKENS.ops);
    // Labels are chosen to confuse: ci labels a lease "ops", ops labels one "ci-agent".
    for (const owner of ['alpha', 'ops', 'alpha']) mine.push(await create(ci, owner));
    for (const owner of ['ci-agent', 'beta']) theirs.push(await create(ops, owner));
  });

  it('lists only the calling principal\'s leases, newest first, in the vm_lease_status shape', async () => {
    const own = await list(ci);
    assert.deepEqual(own.leases.map((l) => l.lease_id), [...mine].reverse(), 'ci-agent sees its 3, newest first');
    assert.equal(own.truncated, false);
    const other = await list(ops);
    assert.deepEqual(other.leases.map((l) => l.lease_id), [...theirs].reverse(), 'ops sees its 2 and none of ci-agent\'s');
    // Same view as vm_lease_status (leases/view.ts): same keys, same values for a settled lease.
    await ready(ci, mine[0]!);
    const status = (await call(ci, 'vm_lease_status', { lease_id: mine[0] })).structuredContent;
    const listed = (await list(ci)).leases.find((l) => l.lease_id === mine[0]);
    assert.deepEqual(listed, status);
  });

  it('the owner filter is a label within your own leases: it never reaches another principal\'s', async () => {
    const labelled = await list(ci, { owner: 'ops' });
    assert.deepEqual(labelled.leases.map((l) => l.lease_id), [mine[1]], 'ci-agent\'s lease labelled "ops", not ops\' leases');
    assert.deepEqual((await list(ci, { owner: 'alpha' })).leases.map((l) => l.lease_id), [mine[2], mine[0]]);
    assert.deepEqual((await list(ops, { owner: 'ci-agent' })).leases.map((l) => l.lease_id), [theirs[0]], 'ops\' own lease labelled "ci-agent" only');
    assert.deepEqual((await list(ci, { owner: 'beta' })).leases, [], 'ops\' "beta" lease is invisible to ci-agent');
  });

  it('filters by status; "live" is every lease not yet ended', async () => {
    for (const id of mine) await ready(ci, id);
    const released = await call(ci, 'vm_lease_release', { lease_id: mine[1] });
    assert.equal(released.structuredContent.status, 'released');
    assert.deepEqual((await list(ci, { status: 'released' })).leases.map((l) => l.lease_id), [mine[1]]);
    assert.deepEqual((await list(ci, { status: 'live' })).leases.map((l) => l.lease_id), [mine[2], mine[0]]);
    assert.deepEqual((await list(ci, { status: 'ready' })).leases.map((l) => l.lease_id), [mine[2], mine[0]]);
    assert.deepEqual((await list(ci, { status: 'ready', owner: 'ops' })).leases, [], 'filters combine');
    assert.equal((await list(ci)).leases.length, 3, 'no status filter: ended leases too');
    const bad = await call(ci, 'vm_lease_list', { status: 'gone' });
    assert.equal(bad.structuredContent.code, 'INVALID_REQUEST');
  });

  it('caps the answer at the newest 100 and says it is truncated', { timeout: 120_000 }, async () => {
    const bulk = await client(TOKENS.bulk);
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) ids.push(await create(bulk, `n${i}`, 'fake-stub'));
    const r = await list(bulk);
    assert.equal(r.leases.length, 100);
    assert.equal(r.truncated, true);
    assert.deepEqual(r.leases.map((l) => l.lease_id), ids.slice(1).reverse(), 'the newest 100, newest first; the oldest left out');
    assert.equal((await list(bulk, { owner: 'n0' })).truncated, false, 'a narrower filter reaches the old one');
    assert.deepEqual((await list(bulk, { owner: 'n0' })).leases.map((l) => l.lease_id), [ids[0]]);
    assert.equal((await list(ci)).leases.length, 3, 'ci-agent still sees only its own');
  });
});
