import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { startPostgres } from '../src/index.ts';

const psql = (url: string, q: string) => execFileSync('psql', [url, '-tAq', '-v', 'ON_ERROR_STOP=1', '-c', q], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] }).trim();

describe('postgres-testing: a real PostgreSQL in a temp dir', () => {
  let pg: Awaited<ReturnType<typeof startPostgres>> | undefined;
  after(() => pg?.destroy());

  it('starts on a loopback port with password auth; a created database answers', async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase('harness');
    assert.equal(psql(url, 'select current_database()'), 'harness');
    assert.match(psql(url, 'show server_version'), /^\d+/);
    assert.throws(() => psql(url.replace('vmhub-test-password', 'wrong'), 'select 1'), /password authentication failed/);
  });

  it('stop → start keeps the data; kill → start recovers it', () => {
    const url = pg!.url('harness');
    psql(url, 'create table t (x int); insert into t values (7)');
    pg!.stop();
    assert.throws(() => psql(url, 'select 1'), /Connection refused|could not connect/);
    pg!.start();
    assert.equal(psql(url, 'select x from t'), '7');
    pg!.kill();
    assert.equal(pg!.running, false);
    pg!.start();
    assert.equal(psql(url, 'select x from t'), '7');
  });
});
