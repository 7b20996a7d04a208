// Long calls survive the client's request timeout (issue 11, item 4): a 75 s vm_exec completes
// through the official SDK client with its default 60 s request timeout, because the server
// sends progress at least every 10 s and the client resets its timeout on progress.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { stdioSuite, waitReady } from './harness.ts';

let lease = '';
const suite = stdioSuite({
  setup: async ({ s }) => {
    lease = (await s.call('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id;
    await waitReady(s, lease);
  },
});

it('server: a 75 s vm_exec completes under a 60 s request timeout with resetTimeoutOnProgress', { timeout: 150_000 }, async (t) => {
  const beats: number[] = [];
  const started = Date.now();
  const r = await suite.s.client.callTool(
    { name: 'vm_exec', arguments: { lease_id: lease, shell: 'sleep 75; echo done', timeout_seconds: 120 } },
    undefined,
    { timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => { beats.push(Date.now() - started); } },
  ) as { isError?: boolean; structuredContent?: any };
  const took = Date.now() - started;
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  assert.equal(r.structuredContent.stdout, 'done\n');
  assert.ok(took >= 75_000, `it really ran 75 s (${took} ms)`);
  assert.ok(beats.length >= 7, `progress every 10 s: ${beats.join(', ')}`);
  const gaps = beats.map((b, i) => b - (beats[i - 1] ?? 0));
  assert.ok(Math.max(...gaps) <= 11_000, `no gap over 10 s (+1 s slack): ${gaps.join(', ')}`);
  t.diagnostic(`75 s vm_exec: ${beats.length} progress notifications, largest gap ${Math.max(...gaps)} ms, done in ${took} ms`);
});

it('server: a detached 3-minute command returns a job at once; its output is read by the job later', { timeout: 300_000 }, async (t) => {
  const started = Date.now();
  const d = await suite.s.call('vm_exec', { lease_id: lease, shell: 'sleep 180; echo built', timeout_seconds: 600, detach: true });
  assert.equal(d.isError, undefined, JSON.stringify(d.structuredContent));
  assert.ok(Date.now() - started < 5_000, 'detach returns at once');
  const job = d.structuredContent.job as string;
  assert.equal(d.structuredContent.running, true);
  // Short calls, as a client with a 60 s request timeout and no progress support would make.
  let polls = 0;
  let r;
  for (;;) {
    r = await suite.s.call('vm_exec', { lease_id: lease, job });
    polls++;
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    if (!r.structuredContent.running) break;
    await new Promise((res) => setTimeout(res, 15_000));
  }
  const took = Date.now() - started;
  assert.equal(r.structuredContent.stdout, 'built\n');
  assert.equal(r.structuredContent.exit_code, 0);
  assert.ok(took >= 180_000, `it ran 3 minutes (${took} ms)`);
  t.diagnostic(`detached 180 s command: read by its job after ${took} ms in ${polls} short calls`);
  const unknown = await suite.s.call('vm_exec', { lease_id: lease, job: 'job-00000000-0000-0000-0000-000000000000' });
  assert.equal(unknown.structuredContent.code, 'NOT_FOUND');
  const mixed = await suite.s.call('vm_exec', { lease_id: lease, job, command: ['true'] });
  assert.equal(mixed.structuredContent.code, 'INVALID_REQUEST');
});

