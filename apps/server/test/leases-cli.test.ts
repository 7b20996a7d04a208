// `vmhub-server leases list|show|release|renew` as a person at a shell runs them: the built
// binary as a child process, on the store a running stdio server uses (fake plugins). Output,
// exit codes, and the effects: a release ends the lease (the server sees `released`) and its
// machine is destroyed (the fake ledger records it, its directory is gone). A CLI command is
// one-shot: with warm pools and the reaper's autostart configured, it starts neither.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { readFakeLedger } from '@vmhub/conformance/fake';
import { POOL_PRINCIPAL, Store } from '@vmhub/store';
import { connect, runBin, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let box: Sandbox;
let s: Session;

const cliIn = (on: Sandbox, ...args: string[]) => runBin(on, ['leases', ...args], {}, 30_000);
const cli = (...args: string[]) => cliIn(box, ...args);

const create = async (owner: string) => (await s.call('vm_lease_create', { template: 'fake-desktop', owner })).structuredContent.lease_id as string;

before(async () => {
  box = sandbox();
  s = await connect(box);
});
after(async () => { await s.close(); box.cleanup(); });

describe('server: leases CLI', () => {
  let a: string;
  let b: string;

  before(async () => {
    a = await create('alice');
    b = await create('bob');
    await waitReady(s, a);
    await waitReady(s, b);
  });

  it('list: a table of the open leases, newest first, with principal and owner', async () => {
    const r = await cli('list');
    assert.equal(r.code, 0, r.stderr);
    const [header, ...rows] = r.stdout.trim().split('\n');
    assert.match(header!, /^LEASE\s+STATUS\s+TEMPLATE\s+PRINCIPAL\s+OWNER\s+CREATED\s+EXPIRES$/);
    assert.deepEqual(rows.map((l) => l.split(/\s+/).slice(0, 5)), [
      [b, 'ready', 'fake-desktop', userInfo().username, 'bob'],
      [a, 'ready', 'fake-desktop', userInfo().username, 'alice'],
    ]);
    assert.match(rows[0]!, /in \d+m \d+s$/, 'expiry shown relative to now');
    const json = JSON.parse((await cli('list', '--json')).stdout);
    assert.deepEqual(json.leases.map((l: any) => [l.lease_id, l.owner, l.principal]), [[b, 'bob', userInfo().username], [a, 'alice', userInfo().username]]);
    assert.equal(json.truncated, false);
    const owned = await cli('list', '--owner', 'alice');
    assert.equal(owned.stdout.trim().split('\n').length, 2, 'header + alice\'s lease');
  });

  it('show: every field of one lease and its machine', async () => {
    const r = await cli('show', a);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^lease\\s+${a}$`, 'm'));
    assert.match(r.stdout, /^status\s+ready$/m);
    assert.match(r.stdout, /^template\s+fake-desktop \(provider fake, adapter fake\)$/m);
    assert.match(r.stdout, /^owner\s+alice$/m);
    assert.match(r.stdout, /^machine\s+fake fake-[0-9a-f]{16}: running$/m);
    const json = JSON.parse((await cli('show', a, '--json')).stdout);
    assert.equal(json.lease_id, a);
    assert.equal(json.machine.state, 'running');
    assert.ok(existsSync(join(box.fakeDir, 'machines', json.machine.external_id)), 'the machine the CLI names exists');
  });

  it('renew: pushes the expiry, as vm_lease_renew does', async () => {
    const before = (await s.call('vm_lease_status', { lease_id: a })).structuredContent.expires_at as string;
    // The default TTL is an hour; renewing never shortens a lease.
    const r = await cli('renew', a, '--ttl', '7200');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^lease ${a} \\(fake-desktop\\): expires \\S+, in (1h 59m|2h 0m); was in 59m \\d+s\n$`));
    const after = (await s.call('vm_lease_status', { lease_id: a })).structuredContent.expires_at as string;
    assert.ok(Date.parse(after) - Date.now() > 7100_000, `the server sees the new expiry (${before} → ${after})`);
  });

  it('release: ends the lease and destroys its machine; again is a no-op', async () => {
    const machine = JSON.parse((await cli('show', b, '--json')).stdout).machine.external_id as string;
    const r = await cli('release', b);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `lease ${b} (fake-desktop): released\n`);
    assert.equal((await s.call('vm_lease_status', { lease_id: b })).structuredContent.status, 'released', 'the server sees it ended');
    const destroyed = (await readFakeLedger(box.fakeDir)).filter((e) => e.external_id === machine).map((e) => e.op);
    assert.deepEqual(destroyed, ['create', 'destroy']);
    assert.equal(existsSync(join(box.fakeDir, 'machines', machine)), false, 'machine directory gone');
    const again = await cli('release', b);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /released/);
    assert.deepEqual((await readFakeLedger(box.fakeDir)).filter((e) => e.external_id === machine).map((e) => e.op), ['create', 'destroy'], 'no second destroy');
    const open = await cli('list');
    assert.doesNotMatch(open.stdout, new RegExp(b), 'an ended lease leaves the default list');
    assert.match((await cli('list', '--all')).stdout, new RegExp(`${b}\\s+released`));
    assert.match((await cli('list', '--status', 'released')).stdout, new RegExp(`${b}\\s+released`));
  });

  it('failures: one typed line and exit 1; a bad command line exits 2', async () => {
    const missing = await cli('show', '00000000-0000-4000-8000-000000000000');
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
    assert.match(missing.stderr, /^vmhub-server leases show: NOT_FOUND: no lease "00000000-0000-4000-8000-000000000000"$/m);
    const json = await cli('release', 'nope', '--json');
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stdout).error.code, 'NOT_FOUND');
    const ended = await cli('renew', b);
    assert.equal(ended.code, 1);
    assert.match(ended.stderr, /LEASE_EXPIRED: lease \S+ is released and cannot be renewed/);
    // ssh: a machine without sshd (the fake provider has no sshAccess) says so, and vm_lease_status offers no command.
    const noSsh = await cli('ssh', a, '--', 'true');
    assert.equal(noSsh.code, 1);
    assert.equal(noSsh.stderr, `vmhub-server leases ssh: CAPABILITY_UNAVAILABLE: lease ${a} (template fake-desktop, provider fake) has no SSH access: its golden runs no sshd, or this host holds no key for it\n`);
    assert.equal((await s.call('vm_lease_status', { lease_id: a })).structuredContent.access, undefined);
    const missingSsh = await cli('ssh', '00000000-0000-4000-8000-000000000000');
    assert.equal(missingSsh.code, 1);
    assert.match(missingSsh.stderr, /^vmhub-server leases ssh: NOT_FOUND: no lease "00000000-0000-4000-8000-000000000000"\n$/);
    for (const args of [[], ['frobnicate'], ['show'], ['show', a, b], ['renew', a, '--ttl', '5'], ['renew', a, '--ttl', 'soon'], ['list', '--status', 'gone'], ['list', '--all', '--status', 'ready'], ['list', '--bogus'], ['list', 'extra'], ['ssh'], ['ssh', a, 'ls'], ['ssh', a, '--'], ['ssh', a, '--principal'], ['ssh', a, '--json']]) {
      const r = await cli(...args);
      assert.equal(r.code, 2, `leases ${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^vmhub-server leases: .+\nusage: vmhub-server leases list/, `leases ${args.join(' ')}`);
    }
    assert.equal((await s.call('vm_lease_status', { lease_id: a })).structuredContent.status, 'ready', 'nothing above touched the other lease');
  });
});

describe('server: leases CLI starts no warm pool and no reaper', () => {
  it('with a pool and the reaper\'s autostart configured and a live lease in the store, list/show leave no pool lease and no reaper', async (t) => {
    const pooled = sandbox({ pools: { 'fake-desktop': { min_ready: 1, max: 2, hold_seconds: 30 } }, reaper: { autostart: true } });
    const reapers = async () => (await run('pgrep', ['-f', '--', `--while-needed --db ${pooled.db}`]).catch(() => ({ stdout: '' }))).stdout.split('\n').filter(Boolean);
    let server: Session | undefined;
    try {
      // The live lease comes from a server that itself runs neither (its own config, the same store).
      const plain = { ...pooled, configFile: join(pooled.dir, 'plain.json') };
      const config = JSON.parse(readFileSync(pooled.configFile, 'utf8'));
      writeFileSync(plain.configFile, JSON.stringify({ ...config, pools: {}, reaper: { autostart: false } }));
      server = await connect(plain);
      const lease = (await server.call('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id as string;
      await waitReady(server, lease);

      for (const args of [['list'], ['list', '--all', '--json'], ['show', lease]]) {
        const r = await cliIn(pooled, ...args);
        assert.equal(r.code, 0, `leases ${args.join(' ')}: ${r.stderr}`);
      }
      // A pool pass runs at once and every 2 s; a started reaper takes the store's lock within a second or two.
      await sleep(3000);
      const store = new Store({ path: pooled.db });
      try {
        const pool = await store.listLeases({ principal: POOL_PRINCIPAL });
        assert.deepEqual(pool.map((l) => `${l.id} ${l.status}`), [], 'no pool lease was made');
        assert.equal(await store.lockHolder('reaper'), undefined, 'no reaper holds the store');
        assert.deepEqual((await store.listLeases({})).map((l) => l.id), [lease], 'the store holds only the server\'s lease');
      } finally {
        await store.close();
      }
      assert.deepEqual(await reapers(), [], 'no reaper process for the store');
      t.diagnostic('3 CLI commands with pools.fake-desktop {min_ready: 1} and reaper.autostart: no pool lease, no reaper');
    } finally {
      await server?.close();
      for (const pid of await reapers()) { try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ } }
      pooled.cleanup();
    }
  });
});
