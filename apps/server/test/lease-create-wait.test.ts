// vm_lease_create {wait_seconds} (issue 28, one-shot clients): the create call itself waits like
// vm_lease_status {wait_seconds} — progress notifications included — and returns the lease as it
// is at the end of the wait, so a client that makes one call per process (the MCP Inspector CLI)
// gets a ready lease in one call. The built server over stdio, on the conformance fake provider.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultTemplates, errorCode, stdioSuite } from './harness.ts';

const READY_MS = 2500;
const suite = stdioSuite({ templates: [...defaultTemplates(), { id: 'fake-2s', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: READY_MS } }] });

describe('vm_lease_create {wait_seconds}', () => {
  it('returns a ready lease in one call, with progress notifications for a progressToken', async () => {
    const progress: string[] = [];
    const started = Date.now();
    const r = await suite.s.client.callTool({ name: 'vm_lease_create', arguments: { template: 'fake-2s', request_id: 'wait-1', wait_seconds: 20 } }, undefined, { onprogress: (p) => { progress.push(p.message ?? ''); } });
    const lease = r.structuredContent as any;
    assert.equal(r.isError, undefined, JSON.stringify(lease));
    assert.equal(lease.status, 'ready', JSON.stringify(lease));
    assert.ok(lease.stages.every((x: any) => x.status === 'done'), JSON.stringify(lease.stages));
    assert.ok(Date.now() - started >= READY_MS, 'the call waited for readiness');
    assert.ok(progress.length >= 2, `progress notifications on stage changes: ${JSON.stringify(progress)}`);
    // (The SDK client handles a notification a tick after it arrives: one sent just before the
    // answer — `ready` — may be dropped on the client's side, so it is not asserted.)
    assert.ok(progress.some((m) => /^starting: boot running/.test(m)), JSON.stringify(progress));

    // The same request_id again: the same lease, ready at once.
    const again = await suite.s.call('vm_lease_create', { template: 'fake-2s', request_id: 'wait-1', wait_seconds: 20 });
    assert.equal(again.structuredContent.lease_id, lease.lease_id);
    assert.equal(again.structuredContent.status, 'ready');
    assert.equal((await suite.s.call('vm_lease_release', { lease_id: lease.lease_id })).structuredContent.status, 'released');
  });

  it('a wait shorter than readiness returns the lease as it is then; without wait_seconds, at once', async () => {
    let started = Date.now();
    const short = await suite.s.call('vm_lease_create', { template: 'fake-2s', wait_seconds: 1 });
    const waited = Date.now() - started;
    assert.ok(['provisioning', 'starting'].includes(short.structuredContent.status), JSON.stringify(short.structuredContent));
    assert.ok(waited >= 900 && waited < READY_MS, `waited ${waited} ms`);
    started = Date.now();
    const now = await suite.s.call('vm_lease_create', { template: 'fake-2s' });
    assert.ok(['provisioning', 'starting'].includes(now.structuredContent.status));
    assert.ok(Date.now() - started < 1500, 'no wait_seconds: returns at once');
    for (const id of [short.structuredContent.lease_id, now.structuredContent.lease_id]) await suite.s.call('vm_lease_release', { lease_id: id });
  });

  it('a lease that fails during the wait is returned failed, with its error', async () => {
    const r = await suite.s.call('vm_lease_create', { template: 'fake-slow', wait_seconds: 20 });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    assert.equal(r.structuredContent.status, 'failed');
    assert.equal(r.structuredContent.error.code, 'BOOT_TIMEOUT');
  });

  it('wait_seconds is an integer 0..25: 26, 2.5, -1 and 600 are INVALID_REQUEST', async () => {
    for (const wait_seconds of [26, 2.5, -1, 600]) {
      const r = await suite.s.call('vm_lease_create', { template: 'fake-2s', wait_seconds });
      assert.equal(errorCode(r), 'INVALID_REQUEST', `wait_seconds ${wait_seconds}: ${JSON.stringify(r.structuredContent)}`);
      assert.match(r.structuredContent.message, /wait_seconds/);
    }
    const listed = (await suite.s.client.listTools()).tools.find((t) => t.name === 'vm_lease_create')!;
    const schema = (listed.inputSchema.properties as Record<string, any>).wait_seconds;
    assert.deepEqual({ type: schema.type, minimum: schema.minimum, maximum: schema.maximum }, { type: 'integer', minimum: 0, maximum: 25 });
    assert.ok(typeof schema.description === 'string' && schema.description.length > 0, 'wait_seconds has a description');
  });
});
