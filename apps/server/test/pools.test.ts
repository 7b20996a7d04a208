// Warm pools on the real Docker engine (debian-x11), through the built server: a lease taken from
// the pool is ready at once and is the pool's own machine; pool machines are never shared (a file
// one lease wrote is absent in the next, released machines are gone from the engine); a changed
// template definition is never served from the old pool, whose machines are destroyed; and a
// killed server's pool machines expire and are reaped by the reaper, leaving nothing in the engine.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { DOCKER_TEMPLATES } from '@vmhub/provider-docker';
import { POOL_PRINCIPAL, Store, type LeaseRow } from '@vmhub/store';
import { until } from '@vmhub/test-kit';
import { connect, type Session } from './harness.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vmhub-pools-'));
const instance = `pl${randomBytes(3).toString('hex')}`;
const db = join(dir, 'vmhub.db');
const config = join(dir, 'config.json');
const box = { dir, instance, db, fakeDir: '', configFile: config, cleanup: () => undefined };
const HOLD_S = 5;

function writeConfig(templates: unknown[] = []): void {
  writeFileSync(config, JSON.stringify({ instance, db, templates, pools: { 'debian-x11': { min_ready: 1, max: 2, hold_seconds: HOLD_S } }, reaper: { autostart: false, orphan_grace_seconds: 0 } }));
}

async function containers(): Promise<string[]> {
  const { stdout } = await run('docker', ['ps', '-a', '--format', '{{.Names}}', '--filter', `name=vmhub-${instance}-`]);
  return stdout.split('\n').filter(Boolean).sort();
}

async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const store = new Store({ path: db });
  try { return await fn(store); } finally { await store.close(); }
}

async function poolLeases(): Promise<LeaseRow[]> {
  return withStore((store) => store.listLeases({ principal: POOL_PRINCIPAL, status: ['provisioning', 'starting', 'ready'] }));
}

/** A ready pool machine of this server's pool (the server fills it in the background). */
const readyPoolLease = () => until(async () => (await poolLeases()).find((r) => r.status === 'ready'), 'a ready pool machine', 90_000);

async function exec(s: Session, lease: string, command: string[]): Promise<{ exit_code: number; stdout: string }> {
  const r = await s.call('vm_exec', { lease_id: lease, command });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  return r.structuredContent;
}

after(async () => {
  await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${instance}-) 2>/dev/null || true`]);
  rmSync(dir, { recursive: true, force: true });
});

describe('warm pools (docker, debian-x11)', { timeout: 600_000 }, () => {
  let s: Session;
  let first = '';

  it('a lease from the pool is ready at once, is the pool\'s machine, and the pool refills', { timeout: 180_000 }, async () => {
    writeConfig();
    s = await connect(box, { VMHUB_LOG_LEVEL: 'warn' });
    const pooled = await readyPoolLease();
    assert.equal(pooled.principal, POOL_PRINCIPAL);
    assert.match(pooled.owner ?? '', /^pool:debian-x11:[0-9a-f]{12}$/);
    // Not an agent's: vm_lease_list does not show it, and no tool binds it before a create claims it.
    assert.equal((await s.call('vm_lease_list', {})).structuredContent.leases.length, 0);
    const early = await s.call('vm_exec', { lease_id: pooled.id, command: ['true'] });
    assert.equal(early.structuredContent.code, 'NOT_FOUND', JSON.stringify(early.structuredContent));

    const t0 = Date.now();
    const created = await s.call('vm_lease_create', { template: 'debian-x11', owner: 'pool-test' });
    const ms = Date.now() - t0;
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    assert.equal(created.structuredContent.status, 'ready', 'a pool machine is ready when vm_lease_create answers');
    first = created.structuredContent.lease_id;
    assert.equal(first, pooled.id, 'the lease is the pool machine itself (its id and identity)');
    const inspect = JSON.parse((await run('docker', ['inspect', `vmhub-${instance}-${first}`])).stdout)[0];
    assert.equal(inspect.Config.Labels['vmhub.identity'], `vmhub-${instance}-${first}`);
    // It works: a command runs, and the desktop answers a screenshot.
    assert.equal((await exec(s, first, ['sh', '-c', 'echo secret-of-the-first-lease > /tmp/mine && echo ok'])).stdout.trim(), 'ok');
    const shot = await s.call('vm_screenshot', { lease_id: first });
    assert.equal(shot.isError, undefined, JSON.stringify(shot.structuredContent));
    const row = await withStore((store) => store.getLease(first));
    assert.equal(row?.owner, 'pool-test');
    assert.notEqual(row?.principal, POOL_PRINCIPAL);
    assert.ok((row?.expires_at ?? 0) > Date.now() + 30 * 60_000, 'the agent\'s TTL (default 1 h), not the pool\'s hold');
    const events = await withStore((store) => store.listEvents({ lease_id: first }));
    assert.deepEqual(events.map((e) => e.kind).filter((k) => k !== 'lease.renewed'), ['lease.created', 'lease.ready', 'lease.claimed']);
    // The pool refills in the background: another machine, not the claimed one.
    const next = await readyPoolLease();
    assert.notEqual(next.id, first);
    process.stderr.write(`[pools test] vm_lease_create from the pool answered ready in ${ms} ms\n`);
  });

  it('pool machines are never shared: a released machine is gone, the next lease has none of its files', { timeout: 180_000 }, async () => {
    const released = await s.call('vm_lease_release', { lease_id: first });
    assert.equal(released.structuredContent.status, 'released');
    assert.ok(!(await containers()).includes(`vmhub-${instance}-${first}`), 'the released machine is gone from the engine');
    await readyPoolLease();
    const second = (await s.call('vm_lease_create', { template: 'debian-x11' })).structuredContent;
    assert.equal(second.status, 'ready');
    assert.notEqual(second.lease_id, first);
    const probe = await exec(s, second.lease_id, ['sh', '-c', 'test -e /tmp/mine; echo $?']);
    assert.equal(probe.stdout.trim(), '1', 'the file the first lease wrote is not in the second lease\'s machine');
    // A third lease while the pool refills is made cold (or from the refilled pool): never the second's machine.
    const third = (await s.call('vm_lease_create', { template: 'debian-x11' })).structuredContent;
    assert.notEqual(third.lease_id, second.lease_id);
    for (const id of [second.lease_id, third.lease_id]) await s.call('vm_lease_release', { lease_id: id });
    // A lease released while its create is in flight loses its machine once the create returns.
    const gone = (id: string) => async () => !(await containers()).includes(`vmhub-${instance}-${id}`);
    for (const id of [first, second.lease_id, third.lease_id]) await until(gone(id), `lease ${id}'s machine to be gone`, 30_000);
  });

  it('a changed template definition is never served from the old pool; the old pool\'s machines are destroyed', { timeout: 180_000 }, async () => {
    const old = await readyPoolLease();
    await s.close();
    const base = DOCKER_TEMPLATES.find((t) => t.id === 'debian-x11');
    assert.ok(base, 'provider-docker ships debian-x11');
    writeConfig([{ ...base, description: `${base.description ?? ''} (changed for the pools test)` }]);
    s = await connect(box, { VMHUB_LOG_LEVEL: 'warn' });
    const fresh = await until(async () => (await poolLeases()).find((r) => r.status === 'ready' && r.owner !== old.owner), 'a pool machine of the new definition', 90_000);
    const created = (await s.call('vm_lease_create', { template: 'debian-x11' })).structuredContent;
    assert.notEqual(created.lease_id, old.id, 'the old definition\'s machine is not handed out');
    assert.equal(created.lease_id, fresh.id);
    await s.call('vm_lease_release', { lease_id: created.lease_id });
    // Not held any more: it expires after hold_seconds and this server destroys it.
    await until(async () => !(await containers()).includes(`vmhub-${instance}-${old.id}`), 'the old pool machine to be gone', 60_000);
    const row = await withStore((store) => store.getLease(old.id));
    assert.equal(row?.status, 'reaped');
  });

  it('a killed server\'s pool machines expire and the reaper destroys them: nothing is left in the engine', { timeout: 180_000 }, async () => {
    await readyPoolLease();
    assert.ok((await containers()).length >= 1);
    process.kill(s.pid!, 'SIGKILL');
    await s.close().catch(() => undefined);
    await sleep(HOLD_S * 1000 + 1500);
    await run(process.execPath, [REAPER, '--once'], { env: { ...process.env, VMHUB_CONFIG: config, VMHUB_LOG_LEVEL: 'error' } }).catch((e: { code?: number }) => { if (e.code !== 1) throw e; });
    assert.deepEqual(await containers(), [], 'no pool machine is left in the engine');
    assert.deepEqual(await poolLeases(), [], 'no pool lease is left live');
  });
});
