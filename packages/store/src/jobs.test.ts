// Detached commands through the store (migration 10), on both dialects: two Store handles on one
// database stand for two server processes sharing one key file. A job one records is seen by the
// other, running and then ended; its outcome is sealed at rest and set once; a job is only found
// on its own lease.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import type { Store } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-jobs-'));
const OUTPUT = 'the output of the job: s3cr3t-p4ss';

async function lease(store: Store, id: string): Promise<void> {
  const now = Date.now();
  await store.createLease({ id, principal: 'p', request_id: `r-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: null, status: 'ready', identity: `vmhub-test-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null });
}

forDialects('store: detached commands', (d) => {
  it('a job recorded by one process is read by another: running (its heartbeat), then its sealed outcome, set once', async () => {
    const keyFile = join(dir, `${d.kind}.key`);
    const db = await d.fresh('jobs');
    const a = d.connect(db, { secretsKeyFile: keyFile });
    const b = d.connect(db, { secretsKeyFile: keyFile });
    await lease(a, 'l1');
    await lease(a, 'l2');
    const by = { pid: 4242, host: 'hub-1', run: 'run-a' };
    await a.addExecJob({ id: 'job-1', lease_id: 'l1', started_by: by });
    await a.addExecJob({ id: 'job-1', lease_id: 'l1', started_by: by }); // a retried insert: skipped

    const running = await b.execJob('l1', 'job-1');
    assert.deepEqual(running?.started_by, by);
    assert.equal(running?.seen_at, running?.started_at, 'seen when started');
    await new Promise((r) => setTimeout(r, 5));
    await a.touchExecJobs(['job-1', 'job-unknown']);
    const touched = (await b.execJob('l1', 'job-1'))!;
    assert.ok(touched.seen_at > touched.started_at, 'the heartbeat moves seen_at');
    assert.equal(running?.finished_at, undefined);
    assert.equal(running?.outcome, undefined);
    assert.equal(await b.execJob('l2', 'job-1'), undefined, 'a job is found on its own lease only');
    assert.equal(await b.execJob('l1', 'job-never'), undefined);

    const outcome = JSON.stringify({ result: { exit_code: 0, stdout: Buffer.from(OUTPUT).toString('base64') } });
    await a.finishExecJob('job-1', outcome);
    await b.finishExecJob('job-1', JSON.stringify({ error: { code: 'INTERNAL', message: 'late' } }));
    const ended = await b.execJob('l1', 'job-1');
    assert.equal(ended?.outcome, outcome, 'the first end stays');
    assert.ok(ended!.finished_at! >= ended!.started_at);
    await new Promise((r) => setTimeout(r, 5));
    await a.touchExecJobs(['job-1']);
    assert.equal((await b.execJob('l1', 'job-1'))!.seen_at, ended!.seen_at, 'an ended job\'s heartbeat stays where it stopped');

    if (d.kind === 'sqlite') {
      await a.schemaInfo();
      const bytes = readFileSync(a.path).toString('latin1') + (() => { try { return readFileSync(`${a.path}-wal`).toString('latin1'); } catch { return ''; } })();
      assert.ok(!bytes.includes(Buffer.from(OUTPUT).toString('base64')) && !bytes.includes('exit_code'), 'the outcome is not in the SQLite file or its WAL in plain text');
      assert.ok(bytes.includes('hub-1'), 'the plain process is there (the check reads the right file)');
    }
  });
});
