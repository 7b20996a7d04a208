import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runOnce, seedLease, summaryOf, useWorld } from './helpers.ts';

describe('reaper: cli', () => {
  const w = useWorld();

  it('--help prints usage and exits 0', async () => {
    const r = await runOnce(w, ['--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /vmhub-reaper --once/);
  });

  it('an unknown flag exits 2', async () => {
    const r = await runOnce(w, ['--bogus']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bogus/);
  });

  it('a config file that does not exist exits 2 and says so', async () => {
    const r = await runOnce(w, ['--config', join(w.dir, 'nope.json')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /does not exist/);
  });

  it('an invalid config value exits 2', async () => {
    const bad = join(w.dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ instance: 'Not-Valid!' }));
    const r = await runOnce(w, ['--config', bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /instance/);
  });

  it('a clean pass prints one summary line and exits 0', async () => {
    await seedLease(w, { status: 'ready' });
    const r = await runOnce(w);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^reaper pass: expired=0 reaped=0 failed=0 released=0 orphans=0 destroyed=0 snapshots=0 skipped=0 errors=0 duration_ms=\d+$/);
  });

  it('--json prints a JSON summary and JSON logs', async () => {
    const r = await runOnce(w, ['--json']);
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout.trim());
    assert.equal(summary.msg, 'reaper pass');
    assert.equal(summary.errors, 0);
    for (const line of r.stderr.trim().split('\n')) assert.doesNotThrow(() => JSON.parse(line), line);
  });

  it('an unreachable provider counts as an error (exit 1) and the rest of the pass still runs', async () => {
    writeFileSync(join(w.fakeDir, 'unreachable'), '');
    try {
      const lease = await seedLease(w, { status: 'ready', expiresIn: -1000 });
      const r = await runOnce(w);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.ok(summaryOf(r.stdout).errors >= 1);
      // expiry is a store transition and the machine has a stored handle: both still happen
      const row = await w.store.getLease(lease.id);
      assert.equal(row?.status, 'reaped');
    } finally {
      const { rmSync } = await import('node:fs');
      rmSync(join(w.fakeDir, 'unreachable'));
    }
  });
});
