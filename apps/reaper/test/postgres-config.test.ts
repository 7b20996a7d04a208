/**
 * The built bin's store configuration: an unsupported scheme is bad configuration (exit 2,
 * naming it); a PostgreSQL URL in VMHUB_DB that nobody answers is not (a --once pass reports
 * it as an error, exit 1) and its password never appears in the output; an unknown coordination
 * mode is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freePort } from '@vmhub/test-kit';
import { exited, spawnReaper, useWorld } from './helpers.ts';

describe('reaper: store configuration', () => {
  const w = useWorld();
  const run = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const child = spawnReaper(w, args, env);
    const code = await exited(child, 60_000);
    return { code, out: child.out(), err: child.err() };
  };

  it('an unsupported scheme is bad configuration (exit 2) and is named', async () => {
    const r = await run(['--once'], { VMHUB_DB: 'mysql://u:hunter2@db.example:3306/vmhub' });
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /bad configuration/);
    assert.match(r.err, /"mysql:\/\/"/);
    assert.ok(!r.err.includes('hunter2'), 'no password in the error');
  });

  it('an unreachable PostgreSQL is not bad configuration: --once exits 1 with the store unavailable, password masked', async () => {
    const port = await freePort();
    const r = await run(['--once'], { VMHUB_DB: `postgres://vmhub:s3cret-pw@127.0.0.1:${port}/vmhub?retry_ms=300&connect_timeout_ms=300` });
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /reaper pass: .*errors=[1-9]/);
    assert.match(r.err, /unreachable/);
    assert.match(r.err, /postgres:\/\/vmhub:\*\*\*@127\.0\.0\.1/);
    assert.ok(!r.err.includes('s3cret-pw') && !r.out.includes('s3cret-pw'), 'no password in the output');
    // The same URL on --db (accepted, though the environment keeps it out of `ps`).
    const flag = await run(['--once', '--db', `postgres://vmhub:s3cret-pw@127.0.0.1:${port}/vmhub?retry_ms=300&connect_timeout_ms=300`]);
    assert.equal(flag.code, 1, flag.err);
    assert.match(flag.err, /reaper ready .*db=postgres:\/\/vmhub:\*\*\*@127\.0\.0\.1/);
    assert.ok(!flag.err.includes('s3cret-pw'), 'no password in the output');
  });

  it('an unknown coordination mode is refused (flag and env)', async () => {
    const flag = await run(['--once', '--coordination', 'anarchy']);
    assert.equal(flag.code, 2);
    assert.match(flag.err, /--coordination must be one of claims, leader/);
    const env = await run(['--once'], { VMHUB_REAPER_COORDINATION: 'anarchy' });
    assert.equal(env.code, 2);
    assert.match(env.err, /VMHUB_REAPER_COORDINATION="anarchy"/);
  });
});
