import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCli, UsageError } from './args.ts';
import { formatSummary, Tally } from './summary.ts';

describe('reaper: args', () => {
  it('parses modes and values', () => {
    assert.deepEqual(parseCli(['--once', '--json', '--db', '/x.db']), { help: false, version: false, once: true, json: true, whileNeeded: false, db: '/x.db' });
    assert.equal(parseCli(['--while-needed', '--db', '/x.db']).whileNeeded, true);
    assert.equal(parseCli(['--interval', '0.5']).interval, 0.5);
    assert.equal(parseCli(['--claim-seconds', '10']).claimSeconds, 10);
  });
  it('refuses bad usage', () => {
    assert.throws(() => parseCli(['--once', '--interval', '5']), UsageError);
    assert.throws(() => parseCli(['--once', '--while-needed']), /exclude each other/);
    assert.throws(() => parseCli(['--interval', '0']), UsageError);
    assert.throws(() => parseCli(['--interval', 'x']), UsageError);
    assert.throws(() => parseCli(['stray']), UsageError);
  });
});

describe('reaper: summary', () => {
  it('says why anything was skipped and bounds error details', () => {
    const t = new Tally('r');
    t.summary.expired = 2;
    t.skip('orphan_grace');
    t.skip('orphan_grace');
    t.skip('claimed_elsewhere');
    for (let i = 0; i < 80; i++) t.error({ message: `e${i}` });
    const s = t.finish();
    assert.match(formatSummary(s), /^reaper pass: expired=2 reaped=0 failed=0 released=0 orphans=0 destroyed=0 snapshots=0 skipped=3 \(orphan_grace=2, claimed_elsewhere=1\) errors=80 duration_ms=\d+$/);
    assert.equal(s.error_details.length, 50);
  });
});
