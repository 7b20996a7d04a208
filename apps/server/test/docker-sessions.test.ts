// Nothing outlives its lease on the real Docker engine, through the built server: leases that
// expire unreleased while the server keeps running, released ones, failed ones and ones the
// reaper reaps all end with their container gone from the engine and vm_health reporting
// sessions {open: 0, channels: 0}.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { debianX11Template } from '@vmhub/provider-docker';
import { Store } from '@vmhub/store';
import { until } from '@vmhub/test-kit';
import { connect, waitReady, type Session } from './harness.ts';

const run = promisify(execFile);
const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vmhub-dsess-'));
const instance = `ds${randomBytes(3).toString('hex')}`;
const config = join(dir, 'config.json');
let s: Session;

const containerExists = (name: string) => run('docker', ['inspect', name]).then(() => true, () => false);
const sessions = async () => (await s.call('vm_health')).structuredContent.sessions as { open: number; channels: number };

async function readyLease(template = 'debian-x11'): Promise<string> {
  const created = await s.call('vm_lease_create', { template });
  assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
  const lease = created.structuredContent.lease_id as string;
  assert.equal((await waitReady(s, lease, 90)).status, 'ready');
  return lease;
}

/** Open the lease's session: adapter session (screenshot) and channel (exec). */
async function use(lease: string): Promise<void> {
  const shot = await s.call('vm_screenshot', { lease_id: lease });
  assert.equal(shot.isError, undefined, JSON.stringify(shot.structuredContent));
  const echo = await s.call('vm_exec', { lease_id: lease, command: ['echo', 'alive'] });
  assert.equal(echo.structuredContent.stdout, 'alive\n');
}

before(async () => {
  writeFileSync(config, JSON.stringify({
    instance, db: join(dir, 'vmhub.db'),
    templates: [
      // An X display that never comes up: provisioning fails (BOOT_TIMEOUT) after the container started.
      { id: 'x11-no-display', provider: 'docker', adapter: 'x11', os: 'linux', golden: debianX11Template.golden, ready_timeout_seconds: 6, provider_options: { display: ':9' } },
    ],
  }));
  s = await connect({ dir, instance, db: join(dir, 'vmhub.db'), fakeDir: '', configFile: config, cleanup: () => {} });
});
after(async () => {
  await s.close();
  await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${instance}-) 2>/dev/null || true`]);
  rmSync(dir, { recursive: true, force: true });
});

describe('server + docker: sessions end with their leases', () => {
  it('expired unreleased (server running), released, reaped and failed leases leave no session, channel or container', { timeout: 240_000 }, async () => {
    const [expiring, released, reaped] = await Promise.all([readyLease(), readyLease(), readyLease()]);
    for (const lease of [expiring, released, reaped]) await use(lease);
    assert.deepEqual(await sessions(), { open: 3, channels: 3 });

    await s.call('vm_lease_release', { lease_id: released });
    assert.deepEqual(await sessions(), { open: 2, channels: 2 });
    assert.equal(await containerExists(`vmhub-${instance}-${released}`), false, 'the released container is gone');

    // Their TTL passes (written to the store as time would: the shortest TTL is 60 s). Nobody calls
    // `expiring`: the server's session sweep finds it. The reaper runs once (another process, same
    // store) while the server keeps running; whichever sees `reaped` expired first tears it down.
    const store = new Store({ path: join(dir, 'vmhub.db') });
    try { for (const id of [expiring, reaped]) await store.updateLease(id, { expires_at: Date.now() - 1 }); } finally { await store.close(); }
    await run(process.execPath, [REAPER, '--once'], { env: { ...process.env, VMHUB_CONFIG: config, VMHUB_LOG_LEVEL: 'error' } }).catch((e: { code?: number }) => { if (e.code !== 1) throw e; });
    await until(async () => (await sessions()).open === 0, 'both expired sessions to end', 20_000);
    assert.deepEqual(await sessions(), { open: 0, channels: 0 });
    for (const lease of [expiring, reaped]) {
      await until(async () => (await s.call('vm_lease_status', { lease_id: lease })).structuredContent.status === 'reaped', `lease ${lease} to be reaped`, 30_000);
      assert.equal(await containerExists(`vmhub-${instance}-${lease}`), false, `the container of ${lease} is gone from the engine`);
    }

    const failing = (await s.call('vm_lease_create', { template: 'x11-no-display' })).structuredContent.lease_id as string;
    await until(async () => (await s.call('vm_lease_status', { lease_id: failing })).structuredContent.status === 'failed', 'the lease to fail', 60_000);
    const shot = await s.call('vm_screenshot', { lease_id: failing });
    assert.equal(shot.structuredContent.code, 'PROVISION_FAILED');
    await until(async () => !(await containerExists(`vmhub-${instance}-${failing}`)), 'the failed container to go', 20_000);
    assert.deepEqual(await sessions(), { open: 0, channels: 0 });
  });

  it('a container removed (docker rm -f) or stopped (docker stop) behind vmhub\'s back ends its lease with MACHINE_LOST, not retryable errors', { timeout: 240_000 }, async () => {
    const [removed, stopped] = await Promise.all([readyLease(), readyLease()]);
    for (const lease of [removed, stopped]) await use(lease);
    await run('docker', ['rm', '-f', `vmhub-${instance}-${removed}`]);
    const st = (await s.call('vm_lease_status', { lease_id: removed })).structuredContent;
    assert.equal(st.status, 'failed', 'status no longer says ready');
    assert.equal(st.error.code, 'MACHINE_LOST');
    for (const [tool, args] of [['vm_screenshot', {}], ['vm_exec', { command: ['true'] }], ['vm_click', { x: 5, y: 5, coordinate_space: 'screen' }]] as const) {
      const r = await s.call(tool, { lease_id: removed, ...args });
      assert.equal(r.structuredContent.code, 'MACHINE_LOST', `${tool}: ${JSON.stringify(r.structuredContent)}`);
      assert.equal(r.structuredContent.retryable, false);
    }

    await run('docker', ['stop', '-t', '1', `vmhub-${instance}-${stopped}`]);
    const r = await s.call('vm_exec', { lease_id: stopped, command: ['true'] });
    assert.equal(r.structuredContent.code, 'MACHINE_LOST', JSON.stringify(r.structuredContent));
    assert.equal(r.structuredContent.retryable, false);
    assert.equal((await s.call('vm_lease_status', { lease_id: stopped })).structuredContent.status, 'failed');
    await until(async () => !(await containerExists(`vmhub-${instance}-${stopped}`)), 'the stopped container to be destroyed', 30_000);
    assert.deepEqual(await sessions(), { open: 0, channels: 0 });
    const store = new Store({ path: join(dir, 'vmhub.db') });
    try {
      for (const lease of [removed, stopped]) assert.ok((await store.listEvents({ lease_id: lease })).some((e) => e.kind === 'machine.lost'), `machine.lost recorded for ${lease}`);
    } finally { await store.close(); }
  });
});
