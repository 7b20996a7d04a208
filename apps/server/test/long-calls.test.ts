// Long calls survive the client's request timeout (issue 11, item 4): a 75 s vm_exec completes
// through the official SDK client with its default 60 s request timeout, because the server
// sends progress at least every 10 s and the client resets its timeout on progress.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { connect, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';

let box: Sandbox;
let s: Session;
let lease = '';
before(async () => {
  box = sandbox();
  s = await connect(box);
  lease = (await s.call('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id;
  await waitReady(s, lease);
});
after(async () => { await s.close(); box.cleanup(); });

it('server: a 75 s vm_exec completes under a 60 s request timeout with resetTimeoutOnProgress', { timeout: 150_000 }, async (t) => {
  const beats: number[] = [];
  const started = Date.now();
  const r = await s.client.callTool(
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
