// Snapshots on a REAL Docker engine, end to end through the built server over MCP: a debian-x11
// lease (provider-docker, memory: false — the container's filesystem as a committed image) with
// the x11 adapter. Restore: the snapshot's file is back, a later one is gone, and the desktop
// answers again through the adapter (a screenshot; a string typed into an xterm arrives in a
// file), so the adapter session reconnected to the new container's X server; a process running
// at the snapshot is not back (memory: false). A restore waits for a call in flight on the lease
// and holds calls asked while it runs (they run on the restored machine). Fork ×3: each sees the snapshot's file, diverges,
// has its own machine-id; released, its container is gone from the engine. Deleted, the
// snapshot's image goes once no container uses it. Needs the debian-x11 golden
// (`vmhub-server golden build debian-x11`). Containers: the lease, its restore, 3 forks.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { until } from '@vmhub/test-kit';
import { absentOn, ok as check, releaseUntilGone, sleepers, typeIntoXterm } from './snapshot-checks.ts';
import { connect, errorCode, guestText, leaseReady, machineBox, waitReady, type Session } from './harness.ts';

const run = promisify(execFile);
const docker = (...args: string[]) => run('docker', args).then((r) => r.stdout.trim());

const box = machineBox('snapdx', 'sdx');
const { instance } = box;
let s: Session;
let lease = '';
let snap = '';
let forks: string[] = [];

const ok = (name: string, args: Record<string, unknown>) => check(s, name, args);
const put = (id: string, path: string, content: string) => ok('vm_put_file', { lease_id: id, path, content });
const read = async (id: string, path: string) => (await ok('vm_get_file', { lease_id: id, path })).content as string;
const containers = (id: string) => docker('ps', '-aq', '--filter', `name=vmhub-${instance}-${id}`);

before(async () => {
  box.write();
  s = await connect(box);
});
after(async () => {
  await box.end(s, [lease, ...forks]);
  // Snapshot images this instance left (a failed run): by their tag, which carries the instance.
  await run('sh', ['-c', `docker rmi -f $(docker images -q --filter reference='vmhub/snapshot:vmhub-${instance}-*') 2>/dev/null || true`]);
});

describe('snapshots on Docker (debian-x11 + x11): restore and fork through the built server', { timeout: 600_000 }, () => {
  it('create (memory: false), then restore: files go back and the desktop answers again through the adapter', async () => {
    await leaseReady(s, { template: 'debian-x11', ttl_seconds: 1200 }, 180, (id) => { lease = id; });
    assert.deepEqual((await ok('vm_capabilities', { lease_id: lease })).snapshot, { memory: false });
    // The adapter session is open and connected before the snapshot: a typed line arrives.
    assert.equal(await typeIntoXterm(s, lease, '/tmp/before.txt', 'before snapshot'), 'before snapshot');
    const before = (await containers(lease)).split('\n');
    // A process running at the snapshot: memory: false says it does not come back.
    await ok('vm_exec', { lease_id: lease, shell: 'nohup sleep 31337 >/dev/null 2>&1 &' });
    assert.equal(await sleepers(s, lease), 1, 'the process runs before the snapshot');
    await put(lease, '/home/user/first.txt', 'in the snapshot');
    const made = (await ok('vm_snapshot', { action: 'create', lease_id: lease, name: 'docker-first' })).snapshots[0];
    snap = made.snapshot_id;
    assert.equal(made.memory, false);
    assert.ok(made.size_bytes > 0, `size_bytes ${made.size_bytes}`);
    assert.ok(await docker('images', '-q', `vmhub/snapshot:vmhub-${instance}-snap-${snap}`), 'the engine has the snapshot image');

    await put(lease, '/home/user/second.txt', 'after the snapshot');
    await put(lease, '/home/user/first.txt', 'changed after the snapshot');
    await ok('vm_snapshot', { action: 'restore', lease_id: lease, snapshot_id: snap });
    assert.equal((await ok('vm_lease_status', { lease_id: lease })).status, 'ready');
    const now = (await containers(lease)).split('\n');
    assert.equal(now.length, 1);
    assert.notDeepEqual(now, before, 'the container was replaced');

    assert.equal(await read(lease, '/home/user/first.txt'), 'in the snapshot');
    assert.equal(await sleepers(s, lease), 0, 'memory: false — the running process did not come back');
    assert.equal(errorCode(await s.call('vm_get_file', { lease_id: lease, path: '/home/user/second.txt' })), 'NOT_FOUND');
    const shot = await ok('vm_screenshot', { lease_id: lease });
    assert.deepEqual(shot.screen, { width: 1280, height: 800 });
    assert.equal(await typeIntoXterm(s, lease, '/tmp/after.txt', 'typed after restore ✓'), 'typed after restore ✓');
  });

  it('a restore waits for the lease\'s call in flight and holds the calls that come while it runs', async () => {
    await put(lease, '/home/user/first.txt', 'changed again');
    const answered: Record<string, number> = {};
    const stamp = <T>(name: string, p: Promise<T>) => p.then((r) => { answered[name] = performance.now(); return r; });
    // In flight when the restore is asked: it finishes on the old machine, whole.
    const inFlight = stamp('exec', ok('vm_exec', { lease_id: lease, command: ['sh', '-c', 'sleep 2; echo finished'] }));
    await new Promise((r) => setTimeout(r, 300));
    const restore = stamp('restore', ok('vm_snapshot', { action: 'restore', lease_id: lease, snapshot_id: snap }));
    await new Promise((r) => setTimeout(r, 500));
    // Asked while the restore waits at the lease's gate: it runs once the machine is back.
    const held = stamp('read', read(lease, '/home/user/first.txt'));
    assert.equal((await inFlight).stdout.trim(), 'finished', 'the call in flight was not cut by the restore');
    await restore;
    assert.equal(await held, 'in the snapshot', 'the held call ran on the restored machine');
    assert.ok(answered.exec! < answered.restore!, 'the restore answered after the call in flight');
    assert.ok(answered.restore! <= answered.read!, 'the held call answered after the restore');
  });

  it('fork ×3: each sees the snapshot\'s file, diverges and has its own machine-id; released, its container is gone', async () => {
    const forked = await ok('vm_lease_create', { snapshot_id: snap, count: 3, ttl_seconds: 900 });
    forks = forked.lease_ids;
    assert.equal(forks.length, 3);
    for (const id of forks) assert.equal((await waitReady(s, id, 240)).status, 'ready', id);
    const ids: string[] = [];
    const hosts: string[] = [];
    for (const id of forks) {
      assert.equal(await read(id, '/home/user/first.txt'), 'in the snapshot', id);
      ids.push((await read(id, '/etc/machine-id')).trim());
      hosts.push((await ok('vm_exec', { lease_id: id, command: ['hostname'] })).stdout.trim());
    }
    assert.equal(new Set(ids).size, 3, `machine-ids differ: ${ids.join(' ')}`);
    assert.equal(new Set(hosts).size, 3, `hostnames differ: ${hosts.join(' ')}`);
    // A machine made from the golden has no machine-id (docker-machine-files.ts); if the parent
    // has one, no fork carries it.
    const parent = await s.call('vm_get_file', { lease_id: lease, path: '/etc/machine-id' });
    if (!parent.isError) assert.ok(!ids.includes(String(parent.structuredContent.content).trim()), 'no fork has the parent\'s machine-id');
    else assert.equal(errorCode(parent), 'NOT_FOUND');

    await put(forks[0]!, '/home/user/mine.txt', 'fork 0 only');
    await absentOn(s, [forks[1]!, forks[2]!, lease], '/home/user/mine.txt');
    await releaseUntilGone(s, forks, containers);
    forks = [];
  });

  it('delete: the snapshot is gone from the list and from the engine once no container uses its image', async () => {
    const tag = `vmhub/snapshot:vmhub-${instance}-snap-${snap}`;
    const image = await docker('images', '-q', '--no-trunc', tag);
    assert.ok(image, 'the snapshot image before delete');
    await ok('vm_snapshot', { action: 'delete', snapshot_id: snap });
    assert.deepEqual((await ok('vm_snapshot', { action: 'list' })).snapshots, []);
    assert.equal(await docker('images', '-q', tag), '', 'the tag is gone');
    // The restored lease's container still runs on the image; released, the image goes with it.
    await releaseUntilGone(s, [lease], containers);
    await until(async () => (await run('docker', ['image', 'inspect', image]).then(() => undefined, () => true)), `image ${image} gone`, 60_000, 250);
    lease = '';
  });
});
