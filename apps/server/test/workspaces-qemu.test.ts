// Workspaces on REAL QEMU (TCG, tiny-console-agent), through the BUILT server, reaper and CLI: the
// workspace is a qcow2 data disk (ext4) in <state_dir>/workspaces/, a virtio disk the golden
// mounts at the exec user's home (/root: the template's user): hot-plugged into a lease resumed
// from the template's saved state, or attached at a cold boot.
// - lease A with "proj" resumes from the saved state, gets the disk hot-plugged and mounted,
//   writes a file and a program into the home; C asking for "proj" meanwhile gets LOCK_CONTENTION
//   naming A; a snapshot of A is CAPABILITY_UNAVAILABLE; A released, lease B with "proj" on a
//   template that cold-boots (saved_state: false) sees both, runs the program and adds a file; a
//   lease without a workspace still resumes, with no disk;
// - the server SIGKILLed while B holds it, B expires and is reaped by the reaper: the disk stays,
//   and a new server's lease D (resumed, hot-plugged) sees both files, and still has them after
//   vm_lease_restart (a reboot inside the same qemu: the init mounts the plugged disk at boot);
//   `workspaces rm` deletes the directory.
// Needs the tiny-console-agent golden (`vmhub-server golden build tiny-console-agent`).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tinyConsoleAgentTemplate } from '@vmhub/provider-qemu';
import { Store } from '@vmhub/store';
import { connect, errorCode, leaseReady, machineBox, runBin, waitReady, type Session } from './harness.ts';
import { killExpireReap } from './kill-and-reap.ts';

const box = machineBox('ws-qemu', 'wq');
const stateDir = join(box.dir, 'qemu');
const agent = tinyConsoleAgentTemplate();
const cold = { ...agent, id: 'tiny-console-agent-cold', provider_options: { ...agent.provider_options, saved_state: false } };
box.write({ templates: [agent, cold], providers: { qemu: { state_dir: stateDir } } });
const leases: string[] = [];
let s: Session | undefined;
let wsDir = '';

async function sh(lease: string, shell: string): Promise<string> {
  const r = await s!.call('vm_exec', { lease_id: lease, shell, timeout_seconds: 60 });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  assert.equal(r.structuredContent.exit_code, 0, JSON.stringify(r.structuredContent));
  return r.structuredContent.stdout as string;
}

const record = (lease: string) => JSON.parse(readFileSync(join(stateDir, `vmhub-${box.instance}-${lease}`, 'identity.json'), 'utf8'));

after(async () => { await box.end(s, leases); });

describe('workspaces on QEMU (TCG): a data disk kept across saved-state resumes and cold boots', { timeout: 900_000 }, () => {
  let a = '';
  let b = '';

  it('lease A with proj resumes from the saved state: the disk is hot-plugged and mounted at the home; a file and a program are written', async () => {
    s = await connect(box);
    a = (await leaseReady(s, { template: 'tiny-console-agent', workspace: 'proj', ttl_seconds: 1800 }, 300, (id) => leases.push(id))).lease_id;
    const store = new Store({ path: box.db });
    const [ws] = await store.listWorkspaces();
    await store.close();
    assert.equal(ws?.holder_lease, a);
    assert.equal(ws?.path, '/root');
    wsDir = join(stateDir, 'workspaces', ws!.identity);
    assert.ok(existsSync(join(wsDir, 'disk.qcow2')));
    assert.equal(record(a).workspace, ws!.identity);
    assert.ok(record(a).restored_from, 'a lease with a workspace resumes from the saved state');
    const serial = readFileSync(join(stateDir, `vmhub-${box.instance}-${a}`, 'serial.log'), 'utf8');
    assert.match(serial, /workspace mounted at \/root/, serial.slice(-3000) + JSON.stringify(await s.call('vm_exec', { lease_id: a, shell: 'cat /proc/cmdline; ls -l /sys/block; cat /sys/block/vd*/serial; dmesg | tail -20' })));
    assert.match(await sh(a, 'grep " /root " /proc/mounts'), /^\/dev\/vd\w+ \/root ext4 /);
    await sh(a, 'echo "kept by proj" > /root/notes.txt && mkdir -p /root/bin && printf "#!/bin/sh\\necho hello from the workspace\\n" > /root/bin/hello && chmod +x /root/bin/hello && sync');
  });

  it('C asking for proj gets LOCK_CONTENTION naming A; a snapshot of A is CAPABILITY_UNAVAILABLE', async () => {
    const c = await s!.call('vm_lease_create', { template: 'tiny-console-agent', workspace: 'proj' });
    assert.equal(errorCode(c), 'LOCK_CONTENTION');
    assert.match(c.structuredContent.message, new RegExp(`attached to lease ${a}`));
    const snap = await s!.call('vm_snapshot', { action: 'create', lease_id: a });
    assert.equal(errorCode(snap), 'CAPABILITY_UNAVAILABLE');
    assert.match(snap.structuredContent.message, /workspace disk/);
  });

  it('A released; lease B with proj on a cold-booting template sees the file and runs the program; a lease without one resumes with no disk', async () => {
    assert.equal((await s!.call('vm_lease_release', { lease_id: a })).structuredContent.status, 'released');
    assert.ok(existsSync(join(wsDir, 'disk.qcow2')), 'release leaves the disk');
    b = (await leaseReady(s!, { template: 'tiny-console-agent-cold', workspace: 'proj', ttl_seconds: 1800 }, 300, (id) => leases.push(id))).lease_id;
    assert.equal(record(b).restored_from, undefined, 'B cold-booted');
    assert.equal(await sh(b, 'cat /root/notes.txt; /root/bin/hello'), 'kept by proj\nhello from the workspace\n');
    await sh(b, 'echo "written by a cold boot" > /root/cold.txt && sync');
    const plain = (await leaseReady(s!, { template: 'tiny-console-agent' }, 300, (id) => leases.push(id))).lease_id;
    assert.ok(record(plain).restored_from, 'a lease without a workspace resumes from the saved state');
    assert.equal(record(plain).workspace, undefined);
    assert.equal(await sh(plain, 'grep -c " /root ext4 " /proc/mounts || true'), '0\n', 'no disk is mounted in a lease without a workspace');
    await s!.call('vm_lease_release', { lease_id: plain });
  });

  it('server SIGKILLed while B holds it; B expires and is reaped: the disk stays and a new lease attaches it; rm deletes it', async () => {
    const { store, status } = await killExpireReap(s!, box, b);
    s = undefined;
    assert.equal(status, 'reaped');
    assert.equal(existsSync(join(stateDir, `vmhub-${box.instance}-${b}`)), false, 'the reaper removed B\'s machine');
    assert.ok(existsSync(join(wsDir, 'disk.qcow2')), 'the reaper left the workspace disk');
    await store.close();

    s = await connect(box);
    const d = (await leaseReady(s, { template: 'tiny-console-agent', workspace: 'proj' }, 300, (id) => leases.push(id))).lease_id;
    assert.ok(record(d).restored_from, 'D resumed from the saved state');
    assert.equal(await sh(d, 'cat /root/notes.txt /root/cold.txt'), 'kept by proj\nwritten by a cold boot\n');
    const restarted = await s.call('vm_lease_restart', { lease_id: d });
    assert.equal(restarted.isError, undefined, JSON.stringify(restarted.structuredContent));
    assert.equal((await waitReady(s, d, 300)).status, 'ready');
    assert.equal(await sh(d, 'cat /root/notes.txt /root/cold.txt; grep -c " /root ext4 " /proc/mounts'), 'kept by proj\nwritten by a cold boot\n1\n', 'the reboot mounted the plugged disk again');
    assert.equal((await s.call('vm_lease_release', { lease_id: d })).structuredContent.status, 'released');
    const rm = await runBin(box, ['workspaces', 'rm', 'proj']);
    assert.equal(rm.code, 0, rm.stderr);
    assert.equal(existsSync(wsDir), false, 'the workspace directory is gone');
  });
});
