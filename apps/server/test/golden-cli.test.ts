/**
 * `vmhub-server golden status|build` through the built binary: the names come from the installed
 * provider packages (provider-docker's golden/ manifests, provider-qemu's tiny-console goldens)
 * and from plugins named in config (a fixture provider whose golden is a marker file).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { BIN } from './harness.ts';

const run = (args: string[], env: Record<string, string> = {}) => spawnSync(process.execPath, [BIN, 'golden', ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });

describe('server: golden CLI', () => {
  it('status lists every golden the provider packages ship, with its provider', () => {
    const r = run(['status']);
    assert.equal(r.status, 0, r.stderr);
    const rows = new Map(r.stdout.trim().split('\n').map((l) => { const [name, state, ref, provider] = l.split('\t'); return [name!, { state, ref, provider }]; }));
    assert.equal(rows.get('debian-x11')?.provider, '@vmhub/provider-docker');
    assert.match(rows.get('debian-x11')?.ref ?? '', /^vmhub\/debian-x11:[0-9a-f]{12}$/);
    for (const name of ['tiny-console', 'tiny-console-agent']) assert.equal(rows.get(name)?.provider, '@vmhub/provider-qemu');
    for (const row of rows.values()) assert.ok(row.state === 'built' || row.state === 'missing', JSON.stringify(row));
  });

  it('an unknown golden, for build or status, exits 2 naming the known ones; no name prints usage', () => {
    for (const args of [['build', 'no-such-golden'], ['status', 'no-such-golden']]) {
      const r = run(args);
      assert.equal(r.status, 2, `golden ${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '', 'nothing on stdout');
      assert.match(r.stderr, /^\[vmhub\] \[golden\] unknown golden "no-such-golden"; known: .*debian-x11.*tiny-console/);
    }
    const u = run(['build']);
    assert.equal(u.status, 2);
    assert.match(u.stderr, /usage: vmhub-server golden build <name>/);
  });

  it('a golden already built says it is up to date, and builds nothing', () => {
    // setup builds tiny-console; should this host's kernel have changed since, the first call rebuilds it.
    const first = run(['build', 'tiny-console']);
    assert.equal(first.status, 0, first.stderr);
    const again = run(['build', 'tiny-console']);
    assert.equal(again.status, 0, again.stderr);
    const status = run(['status', 'tiny-console']);
    const [, state, ref] = status.stdout.trim().split('\t');
    assert.equal(state, 'built');
    assert.equal(again.stdout, `tiny-console is up to date (${ref}), nothing to build\n`);
    assert.doesNotMatch(again.stderr, /building/);
  });
});

describe('server: golden CLI with a provider named in config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-golden-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ plugins: [fileURLToPath(new URL('./fixtures/golden-provider.mjs', import.meta.url))], providers: { 'golden-fixture': { dir } } }));
  const golden = (...args: string[]) => run(args, { VMHUB_CONFIG: config });
  const ref = `fixture:${join(dir, 'fixture-golden.built')}`;

  it('missing, then built (with its progress), then up to date without building again', () => {
    assert.equal(golden('status', 'fixture-golden').stdout, `fixture-golden\tmissing\t${ref}\t${fileURLToPath(new URL('./fixtures/golden-provider.mjs', import.meta.url))}\n`);
    const built = golden('build', 'fixture-golden');
    assert.equal(built.status, 0, built.stderr);
    assert.match(built.stdout, new RegExp(`^fixture-golden built in \\d+\\.\\d s \\(${ref.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\)\\n$`));
    assert.match(built.stderr, /\[golden fixture-golden\] building fixture-golden/);
    const again = golden('build', 'fixture-golden');
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, `fixture-golden is up to date (${ref}), nothing to build\n`);
    assert.equal(again.stderr, '');
    assert.match(golden('status', 'fixture-golden').stdout, /^fixture-golden\tbuilt\t/);
  });

  it('the unknown-golden error lists goldens of plugins named in config too', () => {
    const r = golden('status', 'nonexist');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown golden "nonexist"; known: .*fixture-golden/);
  });
});
