// Snapshots on REAL QEMU (TCG), end to end through the built server over MCP: a tiny-console-agent
// lease (provider-qemu, memory: true — the saved VM state plus the disk). A guest process counts
// in memory, writing each count to a file (the initramfs root: RAM) and to the serial port; a
// snapshot is taken; the count runs on; restore → the count is back near the snapshot's value (not
// restarted from 1: the process itself came back) and goes on from there, and a file written after
// the snapshot is gone. Fork ×3: each fork's counter was in the snapshot and runs on in it, a
// file written in one is absent in the others and the parent, and their RNG output differs
// (vmgenid reseeds); released, every fork's qemu process is gone. Needs the tiny-console-agent
// golden (`vmhub-server golden build tiny-console-agent`). Machines: the lease, its restore, 3 forks.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { tinyConsoleAgentTemplate } from '@vmhub/provider-qemu';
import { until } from '@vmhub/test-kit';
import { absentOn, ok as check, releaseUntilGone } from './snapshot-checks.ts';
import { connect, errorCode, leaseReady, machineBox, waitReady, type Session } from './harness.ts';

const run = promisify(execFile);
const box = machineBox('snapq', 'sq');
const { instance } = box;
let s: Session;
let lease = '';
let snap = '';
let forks: string[] = [];

const ok = (name: string, args: Record<string, unknown>) => check(s, name, args);
const sh = async (id: string, shell: string) => (await ok('vm_exec', { lease_id: id, shell, timeout_seconds: 60 })).stdout as string;
/** The guest counter's latest value (0 while the file is not there yet). */
const count = async (id: string) => Number((await sh(id, 'cat /tmp/count 2>/dev/null || echo 0')).trim()) || 0;
/** The count once it reaches `min`. */
const countAtLeast = (id: string, min: number, what: string) => until(async () => { const c = await count(id); return c >= min ? c : undefined; }, what, 120_000, 250);
/** qemu processes of a lease, by the identity in their argv. */
const qemuPids = (id: string) => run('pgrep', ['-f', `vmhub-${instance}-${id}`]).then((r) => r.stdout.trim(), () => '');

// Once a second: i+1 into /tmp/count (renamed into place) and "VMHUB-COUNT i" on the serial port.
const COUNTER = `( i=0; while :; do i=$((i+1)); echo $i > /tmp/count.t && mv /tmp/count.t /tmp/count; echo "VMHUB-COUNT $i" > /dev/ttyS0; sleep 1; done ) </dev/null >/dev/null 2>&1 &`;

before(async () => {
  box.write({ templates: [tinyConsoleAgentTemplate()], providers: { qemu: { state_dir: join(box.dir, 'qemu') } } });
  s = await connect(box);
});
after(async () => {
  await box.end(s, [lease, ...forks]);
});

describe('snapshots on QEMU (TCG, tiny-console-agent): memory restored, forks diverge', { timeout: 900_000 }, () => {
  it('a counting process comes back with the snapshot and goes on; a later file is gone', async () => {
    await leaseReady(s, { template: 'tiny-console-agent', ttl_seconds: 1800 }, 300, (id) => { lease = id; });
    assert.deepEqual((await ok('vm_capabilities', { lease_id: lease })).snapshot, { memory: true });
    await sh(lease, COUNTER);
    const before = await countAtLeast(lease, 3, 'the counter started');
    await ok('vm_put_file', { lease_id: lease, path: '/tmp/in-snapshot.txt', content: 'kept' });
    const made = (await ok('vm_snapshot', { action: 'create', lease_id: lease, name: 'counting' })).snapshots[0];
    snap = made.snapshot_id;
    assert.equal(made.memory, true);
    const atSnapshot = await count(lease);
    // Let it run on well past the snapshot, and leave a file the snapshot does not have.
    const ranOn = await countAtLeast(lease, atSnapshot + 20, 'the counter ran on');
    await ok('vm_put_file', { lease_id: lease, path: '/tmp/after.txt', content: 'after the snapshot' });
    const pidsBefore = await qemuPids(lease);

    await ok('vm_snapshot', { action: 'restore', lease_id: lease, snapshot_id: snap });
    const back = await count(lease);
    assert.ok(back >= before && back < ranOn, `the count went back: ${before} before the snapshot, ${atSnapshot} right after, ran on to ${ranOn}, ${back} after restore`);
    await countAtLeast(lease, back + 2, 'the restored counter goes on');
    assert.equal(await sh(lease, 'cat /tmp/in-snapshot.txt'), 'kept');
    assert.equal(errorCode(await s.call('vm_get_file', { lease_id: lease, path: '/tmp/after.txt' })), 'NOT_FOUND');
    const pidsAfter = await qemuPids(lease);
    assert.ok(pidsAfter && pidsAfter !== pidsBefore, `qemu restarted for the restore: ${pidsBefore} → ${pidsAfter}`);
  });

  it('fork ×3: each runs the snapshot\'s counter, diverges, has its own RNG output; released, its qemu is gone', async () => {
    const forked = await ok('vm_lease_create', { snapshot_id: snap, count: 3, ttl_seconds: 900 });
    forks = forked.lease_ids;
    assert.equal(forks.length, 3);
    for (const id of forks) assert.equal((await waitReady(s, id, 300)).status, 'ready', id);
    const rng: string[] = [];
    for (const id of forks) {
      assert.equal(await sh(id, 'cat /tmp/in-snapshot.txt'), 'kept', id);
      const c = await count(id);
      await countAtLeast(id, c + 2, `fork ${id}'s counter goes on`);
      rng.push((await sh(id, 'head -c 16 /dev/urandom | od -An -tx1 | tr -d " \\n"')).trim());
    }
    assert.equal(new Set(rng).size, 3, `RNG output differs: ${rng.join(' ')}`);
    await ok('vm_put_file', { lease_id: forks[0]!, path: '/tmp/mine.txt', content: 'fork 0 only' });
    await absentOn(s, [forks[1]!, forks[2]!, lease], '/tmp/mine.txt');
    await releaseUntilGone(s, forks, qemuPids);
    forks = [];
    await ok('vm_snapshot', { action: 'delete', snapshot_id: snap });
    await releaseUntilGone(s, [lease], qemuPids);
    lease = '';
  });
});
