// Workspaces on Proxmox, through the BUILT server, reaper and CLI against the PVE API simulator
// (schema-checked both ways; the simulator allocates a `STORAGE:SIZE` disk as qemu-server does and,
// like it, never frees a volume another VM owns). The workspace disk is owned by a holder VM
// tagged with the workspace's identity: the first lease's VM gets a new disk and that tag; when
// the lease ends the VM is stopped and kept (its lease tag dropped); a later lease attaches the
// holder's volume to its own VM and detaches it before that VM is purged; the reaper's sweep leaves
// the holder; `workspaces rm` deletes the holder VM and its disk.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { errorCode, runBin, waitReady } from './harness.ts';
import { startPveServer, type PveServer } from './pve-server.ts';

const run = promisify(execFile);
const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vmhub-pve-ws-'));
const instance = `pw${randomBytes(3).toString('hex')}`;
let pve: PveServer;
let env: Record<string, string>;

before(async () => {
  // The reaper runs only when this test starts it.
  pve = await startPveServer(dir, instance, { reaper: { autostart: false } }, { workspace_disk: true, workspace_size_gb: 4 });
  env = { PVE_HOST: pve.sim.hostPort, PVE_TOKEN_ID: pve.sim.token.tokenId, PVE_TOKEN: pve.sim.token.secret, PVE_FINGERPRINT: pve.sim.certificate!.fingerprint256 };
});
after(async () => {
  await pve?.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const box = () => ({ dir, instance, db: join(dir, 'vmhub.db'), fakeDir: '', configFile: join(dir, 'config.json'), cleanup: () => {} });
const wsTag = () => pve.sim.state.vms().flatMap((v) => v.tags).find((t) => t.startsWith(`vmhub-${instance}-ws-`));

describe('workspaces on Proxmox (simulator): a disk kept by a holder VM', () => {
  let a = '';
  let holder = 0;
  let volume = '';

  it('lease A with proj: its VM gets a new virtio9 disk (serial vmhub-ws) and the workspace tag', async () => {
    const r = await pve.s.call('vm_lease_create', { template: 'pve-debian', workspace: 'proj' });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    a = r.structuredContent.lease_id;
    assert.equal((await waitReady(pve.s, a, 60)).status, 'ready');
    const vm = pve.sim.state.vms().find((v) => v.tags.includes(`vmhub-${instance}-${a}`))!;
    holder = vm.vmid;
    assert.ok(vm.tags.includes(wsTag()!), JSON.stringify(vm.tags));
    const disk = String(pve.sim.state.raw(holder)!.config.virtio9);
    assert.match(disk, new RegExp(`^local-lvm:vm-${holder}-disk-\\d+,serial=vmhub-ws,size=4G$`));
    volume = disk.split(',')[0]!;
    assert.ok(pve.sim.state.volumes().includes(volume));
  });

  it('C asking for proj gets LOCK_CONTENTION naming A', async () => {
    const c = await pve.s.call('vm_lease_create', { template: 'pve-debian', workspace: 'proj' });
    assert.equal(errorCode(c), 'LOCK_CONTENTION');
    assert.match(c.structuredContent.message, new RegExp(a));
  });

  it('A released: its VM is kept, stopped, as the holder (lease tag dropped); the volume stays', async () => {
    assert.equal((await pve.s.call('vm_lease_release', { lease_id: a })).structuredContent.status, 'released');
    const vm = pve.sim.state.vm(holder)!;
    assert.equal(vm.status, 'stopped');
    assert.deepEqual(vm.tags, [wsTag()]);
    assert.ok(pve.sim.state.volumes().includes(volume));
  });

  it('lease B with proj attaches the holder\'s volume; released, B\'s VM is purged and the volume stays', async () => {
    const r = await pve.s.call('vm_lease_create', { template: 'pve-debian', workspace: 'proj' });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    const b = r.structuredContent.lease_id;
    assert.equal((await waitReady(pve.s, b, 60)).status, 'ready');
    const vmB = pve.sim.state.vms().find((v) => v.tags.includes(`vmhub-${instance}-${b}`))!;
    assert.equal(String(pve.sim.state.raw(vmB.vmid)!.config.virtio9), `${volume},serial=vmhub-ws`);
    assert.equal((await pve.s.call('vm_lease_release', { lease_id: b })).structuredContent.status, 'released');
    assert.equal(pve.sim.state.vm(vmB.vmid), undefined, 'B\'s VM is gone');
    assert.ok(pve.sim.state.vm(holder), 'the holder stays');
    assert.ok(pve.sim.state.volumes().includes(volume), 'the workspace volume stays');
  });

  it('the reaper\'s sweep leaves the holder; `workspaces rm` deletes it and its disk; no schema violation', async () => {
    await run(process.execPath, [REAPER, '--once'], { env: { ...process.env, ...env, HOME: dir, VMHUB_CONFIG: join(dir, 'config.json'), VMHUB_LOG_LEVEL: 'error' } }).catch((e: { code?: number }) => { if (e.code !== 1) throw e; });
    assert.ok(pve.sim.state.vm(holder), 'the reaper left the holder');
    const rm = await runBin(box(), ['workspaces', 'rm', 'proj'], env);
    assert.equal(rm.code, 0, rm.stderr);
    assert.equal(pve.sim.state.vm(holder), undefined, 'the holder VM is gone');
    assert.ok(!pve.sim.state.volumes().includes(volume), 'its disk is gone');
    assert.deepEqual(pve.sim.violations, [], 'every response matched the official schema');
  });
});
