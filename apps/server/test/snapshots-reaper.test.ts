// Snapshots and the reaper, through the BUILT server and reaper on the conformance fake:
// - a snapshot whose keep_hours passed is deleted by the reaper with the server SIGKILLed, by its
//   identity; a decoy beside it (a snapshot that looks the same but carries another identity) is
//   left alone;
// - over the disk budget (snapshots.max_bytes) a create answers QUOTA_EXCEEDED naming the limit,
//   and the snapshot it made is deleted again: nothing stays.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { createFakeProvider, fakeTemplate, readFakeLedger } from '@vmhub/conformance/fake';
import { Store } from '@vmhub/store';
import { connect, leaseReady, sandbox, stdioSuite, until } from './harness.ts';

const run = promisify(execFile);
const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));

describe('snapshots: the reaper deletes an expired one with the server SIGKILLed, and leaves a decoy', () => {
  it('server makes a snapshot and dies; its keep_hours pass; the reaper deletes it by identity, not the decoy', async () => {
    // keep_hours 0.0005: 1.8 s.
    const box = sandbox({ snapshots: { keep_hours: 0.0005 } });
    try {
      const s = await connect(box);
      const lease = (await leaseReady(s, { template: 'fake-desktop' })).lease_id as string;
      await s.call('vm_put_file', { lease_id: lease, path: '/home/user/a.txt', content: 'kept in the snapshot' });
      const made = await s.call('vm_snapshot', { action: 'create', lease_id: lease });
      assert.equal(made.isError, undefined, JSON.stringify(made.structuredContent));
      const snap = made.structuredContent.snapshots[0].snapshot_id as string;
      // The decoy: a snapshot of the same machine in the same place, made by another instance.
      const store = new Store({ path: box.db });
      const machine = (await store.getMachine(lease))!;
      const other = createFakeProvider({ dir: box.fakeDir }, { identityPrefix: 'vmhub-other-', log: () => undefined });
      const decoy = await other.snapshot!({ identity: machine.identity, external_id: machine.external_id! }, { identity: `vmhub-other-snap-${snap}`, template: fakeTemplate(), signal: AbortSignal.timeout(10_000) });
      process.kill(s.pid!, 'SIGKILL');
      await until(() => { try { process.kill(s.pid!, 0); return false; } catch { return true; } }, 'the server to die', 10_000);
      await s.close().catch(() => undefined);
      const row = (await store.getSnapshot(snap))!;
      await until(() => Date.now() > row.expires_at, 'keep_hours to pass', 10_000);

      await run(process.execPath, [REAPER, '--once'], { env: { PATH: process.env.PATH, HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error', DOCKER_HOST: `unix://${box.dir}/no-docker.sock` } }).catch((e: { code?: number; stdout?: string }) => { if (e.code !== 1) throw e; });
      const after = (await store.getSnapshot(snap))!;
      assert.deepEqual([after.state, after.outcome], ['deleted', 'destroyed']);
      assert.ok(after.claimed_by === undefined && (await store.listEvents({ lease_id: lease, kind: 'snapshot.deleted' }))[0]?.actor.startsWith('reaper:'), 'the reaper deleted it');
      const deletes = (await readFakeLedger(box.fakeDir)).filter((e) => e.op === 'delete_snapshot');
      assert.deepEqual(deletes.map((e) => e.identity), [row.identity], 'only ours, once');
      assert.deepEqual((await other.listSnapshots!()).map((x) => x.identity), [decoy.identity], 'the decoy is untouched');
      await store.close();
    } finally {
      box.cleanup();
    }
  });
});

describe('snapshots: the disk budget', () => {
  const suite = stdioSuite({ config: { snapshots: { max_bytes: 16 } } });

  it('a create that would pass snapshots.max_bytes answers QUOTA_EXCEEDED naming it; the snapshot made is deleted again', async () => {
    const { s, box } = suite;
    const lease = (await leaseReady(s, { template: 'fake-desktop' })).lease_id as string;
    await s.call('vm_put_file', { lease_id: lease, path: '/home/user/big.txt', content: 'x'.repeat(100) });
    const r = await s.call('vm_snapshot', { action: 'create', lease_id: lease });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.code, 'QUOTA_EXCEEDED');
    assert.match(r.structuredContent.message, /snapshots\.max_bytes/);
    assert.deepEqual((await s.call('vm_snapshot', { action: 'list' })).structuredContent.snapshots, []);
    const ledger = await readFakeLedger(box.fakeDir);
    assert.equal(ledger.filter((e) => e.op === 'snapshot').length, 1);
    assert.equal(ledger.filter((e) => e.op === 'delete_snapshot').length, 1, 'the snapshot over the budget was deleted again');
    assert.deepEqual((await s.call('vm_health')).structuredContent.snapshots, { count: 0, bytes: 0, max_bytes: 16 });
    await s.call('vm_lease_release', { lease_id: lease });
  });
});
