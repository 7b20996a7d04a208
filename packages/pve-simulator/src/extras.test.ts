import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSimulator } from '../test/helpers/simulator.ts';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl lease';

describe('pve-simulator: storage, cloud-init, resize, pools, suspend', () => {
  const pve = useSimulator({ tls: false, pools: [{ poolid: 'vmhub', comment: 'leases' }], vms: [{ vmid: 300, name: 'vm300', status: 'running', pool: 'vmhub' }], guest: { agentDelayMs: 0 }, timing: { stopMs: 10, configMs: 10 } });

  it('lists storage and reports its status', async () => {
    const list = await pve.api.get('/storage');
    assert.deepEqual(list.body.data.map((s: { storage: string }) => s.storage), ['local-lvm', 'local']);
    const st = await pve.api.get('/nodes/pve1/storage/local-lvm/status');
    assert.equal(st.body.data.type, 'lvmthin');
    assert.ok(st.body.data.avail > 0);
  });

  it('shows and renders cloud-init values', async () => {
    await pve.api.put('/nodes/pve1/qemu/300/config', { ciuser: 'vmhub', sshkeys: encodeURIComponent(KEY), ipconfig0: 'ip=10.0.0.5/24,gw=10.0.0.1', cipassword: 'secret' });
    const view = await pve.api.get('/nodes/pve1/qemu/300/cloudinit');
    assert.deepEqual(view.body.data.find((e: { key: string }) => e.key === 'cipassword'), { key: 'cipassword', value: '**********' });
    const user = await pve.api.get('/nodes/pve1/qemu/300/cloudinit/dump', { type: 'user' });
    assert.match(user.body.data, /^#cloud-config\n/);
    assert.ok(user.body.data.includes(`  - ${KEY}`));
    const net = await pve.api.get('/nodes/pve1/qemu/300/cloudinit/dump', { type: 'network' });
    assert.ok(net.body.data.includes("address: '10.0.0.5/24'"));
    assert.deepEqual((await pve.api.put('/nodes/pve1/qemu/300/cloudinit')).body, { data: null });
  });

  it('resizes a disk as a task', async () => {
    const r = await pve.api.put('/nodes/pve1/qemu/300/resize', { disk: 'scsi0', size: '+2G' });
    assert.match(r.body.data, /:qmresize:300:/);
    assert.equal(await pve.api.waitTask(r.body.data), 'OK');
    assert.match(String(pve.sim.state.vm(300)?.config.scsi0), /size=10G/);
    assert.equal((await pve.api.put('/nodes/pve1/qemu/300/resize', { disk: 'scsi0', size: '1G' })).reason, 'shrinking disks is not supported');
  });

  it('answers pools by id with their members', async () => {
    const p = await pve.api.get('/pools/vmhub');
    assert.equal(p.body.data.comment, 'leases');
    assert.deepEqual(p.body.data.members.map((m: { vmid: number }) => m.vmid), [300]);
  });

  it('suspend pauses the VM and silences the agent; resume brings it back', async () => {
    assert.equal(await pve.api.waitTask((await pve.api.post('/nodes/pve1/qemu/300/status/suspend')).body.data), 'OK');
    assert.equal((await pve.api.get('/nodes/pve1/qemu/300/status/current')).body.data.qmpstatus, 'paused');
    assert.equal((await pve.api.post('/nodes/pve1/qemu/300/agent/ping')).reason, 'QEMU guest agent is not running');
    assert.equal((await pve.api.post('/nodes/pve1/qemu/300/status/shutdown')).reason, 'VM is paused - cannot shutdown');
    assert.equal(await pve.api.waitTask((await pve.api.post('/nodes/pve1/qemu/300/status/resume')).body.data), 'OK');
    assert.equal((await pve.api.post('/nodes/pve1/qemu/300/agent/ping')).status, 200);
    assert.deepEqual((await pve.api.get('/nodes/pve1/qemu/300/agent')).body.data.at(-1), { name: 'ping' });
    assert.deepEqual(pve.sim.violations, []);
  });
});
