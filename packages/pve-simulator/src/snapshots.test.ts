import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSimulator } from '../test/helpers/simulator.ts';

describe('pve-simulator: snapshots (create, list, rollback, delete, clone from one)', () => {
  const pve = useSimulator({
    tls: false,
    storages: [
      { id: 'local-lvm', type: 'lvmthin' },
      { id: 'plain', type: 'lvm' },
      { id: 'tank', type: 'zfspool' },
    ],
    vms: [
      { vmid: 9000, name: 'golden', template: true },
      { vmid: 300, name: 'vm300', status: 'running' },
      { vmid: 301, name: 'vm301', storage: 'plain' },
      { vmid: 302, name: 'vm302', storage: 'tank', status: 'running' },
    ],
    guest: { agentDelayMs: 0 },
    // Snapshot, rollback and delete tasks run long enough for the test to see their lock right after the POST
    // answers (at 10 ms a loaded host finished the task first).
    timing: { snapshotMs: 400, rollbackMs: 300, delSnapshotMs: 300, startMs: 10, stopMs: 10, fullCloneMs: 10 },
  });
  const Q = '/nodes/pve1/qemu/300';

  it('a RAM snapshot of a running VM: qmsnapshot task under lock `snapshot`, state volume, listed with `current`', async () => {
    pve.sim.state.writeGuestFile(300, '/srv/a', 'before');
    const t = await pve.api.post(`${Q}/snapshot`, { snapname: 'one', vmstate: 1, description: 'identity: x' });
    assert.equal(t.status, 200);
    assert.match(t.body.data, /:qmsnapshot:300:/);
    assert.equal(pve.sim.state.vm(300)!.lock, 'snapshot');
    assert.equal(await pve.api.waitTask(t.body.data), 'OK');
    assert.equal(pve.sim.state.vm(300)!.lock, undefined);
    const list = (await pve.api.get(`${Q}/snapshot`)).body.data;
    assert.deepEqual(list.map((s: { name: string }) => s.name), ['one', 'current']);
    assert.equal(list[0].vmstate, 1);
    assert.equal(list[0].description, 'identity: x');
    assert.equal(list[1].parent, 'one');
    assert.ok(pve.sim.state.volumes().includes('local-lvm:vm-300-state-one'));
    assert.deepEqual(pve.sim.state.snapshots(300)[0]!.files, { '/srv/a': 'before' });
    assert.deepEqual(pve.sim.violations, []);
  });

  it('rollback to a RAM snapshot: the disk comes back and the VM runs on without booting', async () => {
    pve.sim.state.writeGuestFile(300, '/srv/a', 'after');
    pve.sim.state.writeGuestFile(300, '/srv/b', 'new');
    const t = await pve.api.post(`${Q}/snapshot/one/rollback`);
    assert.match(t.body.data, /:qmrollback:300:/);
    assert.equal(pve.sim.state.vm(300)!.lock, 'rollback');
    assert.equal(await pve.api.waitTask(t.body.data), 'OK');
    const vm = pve.sim.state.vm(300)!;
    assert.equal(vm.status, 'running');
    assert.equal(vm.agentReady, true);
    assert.equal(vm.config.vmstate, undefined);
    assert.equal(pve.sim.state.readGuestFile(300, '/srv/a')!.toString(), 'before');
    assert.equal(pve.sim.state.readGuestFile(300, '/srv/b'), undefined);
  });

  it('a disk-only snapshot rolls back stopped, or started with start=1', async () => {
    const stop = await pve.api.post(`${Q}/status/stop`);
    await pve.api.waitTask(stop.body.data);
    assert.equal(await pve.api.waitTask((await pve.api.post(`${Q}/snapshot`, { snapname: 'cold', vmstate: 1 })).body.data), 'OK');
    assert.equal(pve.sim.state.snapshots(300).find((s) => s.name === 'cold')!.vmstate, false, 'no RAM on a stopped VM');
    assert.equal(await pve.api.waitTask((await pve.api.post(`${Q}/snapshot/cold/rollback`)).body.data), 'OK');
    assert.equal(pve.sim.state.vm(300)!.status, 'stopped');
    assert.equal(await pve.api.waitTask((await pve.api.post(`${Q}/snapshot/cold/rollback`, { start: 1 })).body.data), 'OK');
    assert.equal(pve.sim.state.vm(300)!.status, 'running');
    assert.equal((await pve.api.get(`${Q}/snapshot`)).body.data.find((s: { name: string }) => s.name === 'cold').parent, 'one');
  });

  it('clone from a snapshot: a full copy of its config and files, never its RAM; linked is refused', async () => {
    const linked = await pve.api.post(`${Q}/clone`, { newid: 400, snapname: 'one', full: 0 });
    assert.equal(linked.status, 500);
    assert.match(linked.reason, /^Linked clone feature is not supported/);
    const missing = await pve.api.post(`${Q}/clone`, { newid: 400, snapname: 'nope', full: 1 });
    assert.deepEqual([missing.status, missing.reason], [500, "snapshot 'nope' does not exist"]);
    pve.sim.state.writeGuestFile(300, '/srv/c', 'not in the snapshot');
    const c = await pve.api.post(`${Q}/clone`, { newid: 400, snapname: 'one', full: 1, name: 'fork' });
    assert.equal(await pve.api.waitTask(c.body.data), 'OK');
    const fork = pve.sim.state.vm(400)!;
    assert.equal(fork.status, 'stopped');
    assert.equal(fork.config.vmstate, undefined);
    assert.equal(fork.config.scsi0, 'local-lvm:vm-400-disk-0,size=8G');
    assert.notEqual(fork.config.vmgenid, pve.sim.state.vm(300)!.config.vmgenid);
    assert.deepEqual(fork.snapshots, []);
    assert.equal(pve.sim.state.readGuestFile(400, '/srv/a')!.toString(), 'before');
    assert.equal(pve.sim.state.readGuestFile(400, '/srv/c'), undefined);
  });

  it('task failures: name used, reserved name (HTTP), template, storage without snapshots, missing, locked', async () => {
    const used = await pve.api.post(`${Q}/snapshot`, { snapname: 'one' });
    assert.equal(await pve.api.waitTask(used.body.data), "snapshot name 'one' already used");
    const reserved = await pve.api.post(`${Q}/snapshot`, { snapname: 'current' });
    assert.deepEqual([reserved.status, reserved.reason], [500, "unable to use snapshot name 'current' (reserved name)"]);
    const tpl = await pve.api.post('/nodes/pve1/qemu/9000/snapshot', { snapname: 'x1' });
    assert.equal(await pve.api.waitTask(tpl.body.data), "you can't take a snapshot if it's a template");
    const lvm = await pve.api.post('/nodes/pve1/qemu/301/snapshot', { snapname: 'x1' });
    assert.equal(await pve.api.waitTask(lvm.body.data), 'snapshot feature is not available');
    const gone = await pve.api.post(`${Q}/snapshot/nope/rollback`);
    assert.equal(await pve.api.waitTask(gone.body.data), "snapshot 'nope' does not exist");
    const delGone = await pve.api.del(`${Q}/snapshot/nope`);
    assert.equal(await pve.api.waitTask(delGone.body.data), "snapshot 'nope' does not exist");
    pve.sim.state.lockVm(300, 'backup');
    const locked = await pve.api.post(`${Q}/snapshot`, { snapname: 'x2' });
    assert.equal(await pve.api.waitTask(locked.body.data), 'VM is locked (backup)');
    pve.sim.state.unlockVm(300);
    assert.equal(pve.sim.state.vm(300)!.lock, undefined);
    const tmpl = await pve.api.post(`${Q}/template`);
    assert.deepEqual([tmpl.status, tmpl.reason], [500, "you can't convert a VM to template if VM is running"]);
  });

  it('ZFS: snapshots work, a full clone from one does not', async () => {
    const zs = await pve.api.post('/nodes/pve1/qemu/302/snapshot', { snapname: 'zz' });
    assert.equal(zs.status, 200, zs.reason);
    assert.equal(await pve.api.waitTask(zs.body.data), 'OK');
    const c = await pve.api.post('/nodes/pve1/qemu/302/clone', { newid: 401, snapname: 'zz', full: 1 });
    assert.deepEqual([c.status, c.reason], [500, "Full clone feature is not supported for drive 'scsi0'"]);
  });

  it('delete: qmdelsnapshot under lock `snapshot-delete`, children re-parented, state volume freed; destroy takes the rest', async () => {
    const d = await pve.api.del(`${Q}/snapshot/one`);
    assert.match(d.body.data, /:qmdelsnapshot:300:/);
    assert.equal(pve.sim.state.vm(300)!.lock, 'snapshot-delete');
    assert.equal(await pve.api.waitTask(d.body.data), 'OK');
    assert.deepEqual(pve.sim.state.vm(300)!.snapshots, ['cold']);
    assert.equal(pve.sim.state.snapshots(300)[0]!.parent, undefined);
    assert.equal(pve.sim.state.volumes().includes('local-lvm:vm-300-state-one'), false);
    assert.equal(await pve.api.waitTask((await pve.api.post(`${Q}/status/stop`)).body.data), 'OK');
    const tmpl = await pve.api.post(`${Q}/template`);
    assert.deepEqual([tmpl.status, tmpl.reason], [500, 'unable to create template, because VM contains snapshots']);
    assert.equal(await pve.api.waitTask((await pve.api.del(Q, { purge: 1 })).body.data), 'OK');
    assert.equal(pve.sim.state.vm(300), undefined);
    assert.deepEqual(pve.sim.violations, []);
    for (const e of ['GET /nodes/{node}/qemu/{vmid}/snapshot', 'POST /nodes/{node}/qemu/{vmid}/snapshot', 'POST /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback', 'DELETE /nodes/{node}/qemu/{vmid}/snapshot/{snapname}']) {
      assert.ok(pve.sim.state.endpointsExercised().includes(e), e);
    }
  });
});
