/**
 * `vmhub-server golden status|build` through the built binary: the names come from the installed
 * provider packages (provider-docker's golden/ manifests, provider-qemu's tiny-console goldens).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { BIN } from './harness.ts';

const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'golden', ...args], { encoding: 'utf8', timeout: 30_000 });

describe('server: golden CLI', () => {
  it('status lists every golden the provider packages ship, with its provider', () => {
    const r = run('status');
    assert.equal(r.status, 0, r.stderr);
    const rows = new Map(r.stdout.trim().split('\n').map((l) => { const [name, state, ref, provider] = l.split('\t'); return [name!, { state, ref, provider }]; }));
    assert.equal(rows.get('debian-x11')?.provider, '@vmhub/provider-docker');
    assert.match(rows.get('debian-x11')?.ref ?? '', /^vmhub\/debian-x11:[0-9a-f]{12}$/);
    for (const name of ['tiny-console', 'tiny-console-agent']) assert.equal(rows.get(name)?.provider, '@vmhub/provider-qemu');
    for (const row of rows.values()) assert.ok(row.state === 'built' || row.state === 'missing', JSON.stringify(row));
  });

  it('an unknown golden exits 2 naming the known ones; no name prints usage', () => {
    const r = run('build', 'no-such-golden');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown golden "no-such-golden"; known: .*debian-x11.*tiny-console/);
    const u = run('build');
    assert.equal(u.status, 2);
    assert.match(u.stderr, /usage: vmhub-server golden build <name>/);
  });
});
