import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { useSimulator } from '../test/helpers/simulator.ts';

describe('pve-simulator: locks, tasks, nodes and edge cases', () => {
  const pve = useSimulator({
    tls: false,
    nodes: [{ name: 'pve1' }, { name: 'pve2', memoryTotal: 8 * 2 ** 30 }],
    storages: [
      { id: 'local-lvm', type: 'lvmthin' },
      { id: 'ceph', type: 'rbd', shared: true },
    ],
    vms: [
      { vmid: 9000, name: 'golden', template: true },
      { vmid: 9001, name: 'golden-shared', template: true, storage: 'ceph' },
    ],
    timing: { cloneMs: 20, fullCloneMs: 60_000, startMs: 10, configMs: 10 },
    resourcesLagMs: 60_000,
  });

  it('start: failures surface only as the task exit status', async () => {
    const t = await pve.api.post('/nodes/pve1/qemu/9000/status/start');
    assert.equal(t.status, 200);
    assert.equal(await pve.api.waitTask(t.body.data), "you can't start a vm if it's a template");
    const c = await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 400, full: 1 });
    const early = await pve.api.post('/nodes/pve1/qemu/400/status/start');
    assert.equal(early.status, 200);
    assert.equal(await pve.api.waitTask(early.body.data), 'VM is locked (clone)');
    pve.sim.state.settle();
    assert.equal(await pve.api.waitTask(c.body.data), 'OK');
    const ok = await pve.api.post('/nodes/pve1/qemu/400/status/start');
    assert.equal(await pve.api.waitTask(ok.body.data), 'OK');
    const twice = await pve.api.post('/nodes/pve1/qemu/400/status/start');
    assert.equal(await pve.api.waitTask(twice.body.data), 'VM 400 already running');
  });

  it('config on a running VM: fast keys apply, others stay pending until the next start', async () => {
    const put = await pve.api.put('/nodes/pve1/qemu/400/config', { cores: 4, name: 'renamed' });
    assert.equal(put.status, 200);
    const vm = pve.sim.state.vm(400)!;
    assert.equal(vm.name, 'renamed');
    assert.equal(vm.config.cores, 2);
    assert.equal(vm.pending.cores, 4);
    assert.equal((await pve.api.get('/nodes/pve1/qemu/400/config')).body.data.cores, 4);
    assert.equal((await pve.api.get('/nodes/pve1/qemu/400/config', { current: 1 })).body.data.cores, 2);
    const pending = await pve.api.get('/nodes/pve1/qemu/400/pending');
    assert.deepEqual(pending.body.data.find((p: { key: string }) => p.key === 'cores'), { key: 'cores', value: '2', pending: '4' });
    const stale = await pve.api.put('/nodes/pve1/qemu/400/config', { description: 'x', digest: '0'.repeat(40) });
    assert.equal(stale.reason, 'checksum mismatch (file change by other user?)');
    const bg = await pve.api.post('/nodes/pve1/qemu/400/config', { description: 'bg', background_delay: 5 });
    assert.deepEqual(bg.body, { data: null });
    assert.equal(pve.sim.state.vm(400)?.config.description, 'bg');
  });

  it('timed locks refuse operations with the real message, then lift', async () => {
    pve.sim.state.lockVm(400, 'backup', 150);
    const r = await pve.api.put('/nodes/pve1/qemu/400/config', { description: 'y' });
    assert.deepEqual([r.status, r.reason], [500, 'VM is locked (backup)']);
    assert.equal((await pve.api.post('/nodes/pve1/qemu/400/clone', { newid: 401 })).reason, 'VM is locked (backup)');
    await new Promise((res) => setTimeout(res, 200));
    assert.equal((await pve.api.put('/nodes/pve1/qemu/400/config', { description: 'y' })).status, 200);
  });

  it('destroy: running refused, template with linked clones refused in the task', async () => {
    assert.equal((await pve.api.del('/nodes/pve1/qemu/400')).reason, 'VM 400 is running - destroy failed');
    await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 405 });
    pve.sim.state.settle();
    const d = await pve.api.del('/nodes/pve1/qemu/9000');
    assert.equal(await pve.api.waitTask(d.body.data), "base volume 'local-lvm:base-9000-disk-0' is still in use by linked cloned");
    assert.ok(pve.sim.state.vm(9000));
    await pve.api.put('/nodes/pve1/qemu/400/config', { protection: 1 });
    await pve.api.waitTask((await pve.api.post('/nodes/pve1/qemu/400/status/stop')).body.data);
    assert.equal((await pve.api.del('/nodes/pve1/qemu/400')).reason, "can't remove VM 400 - protection mode enabled");
  });

  it('clone rules: linked only from templates, target only with shared storage', async () => {
    assert.equal((await pve.api.post('/nodes/pve1/qemu/400/clone', { newid: 402, full: 0 })).reason, "Linked clone feature is not supported for 'local-lvm:vm-400-disk-0' (scsi0)");
    assert.equal((await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 402, storage: 'ceph' })).reason, "parameter 'storage' not allowed for linked clones");
    assert.equal((await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 402, target: 'pve2' })).reason, "can't clone VM to node 'pve2' (VM uses local storage)");
    const moved = await pve.api.post('/nodes/pve1/qemu/9001/clone', { newid: 402, target: 'pve2' });
    assert.equal(await pve.api.waitTask(moved.body.data), 'OK');
    assert.equal(pve.sim.state.vm(402)?.node, 'pve2');
    const wrongNode = await pve.api.get('/nodes/pve1/qemu/402/config');
    assert.equal(wrongNode.reason, "Configuration file 'nodes/pve1/qemu-server/402.conf' does not exist");
    const full = await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 403, full: 1, storage: 'ceph', format: 'raw' });
    pve.sim.state.settle();
    assert.equal(await pve.api.waitTask(full.body.data), 'OK');
    assert.match(String(pve.sim.state.vm(403)?.config.scsi0), /^ceph:vm-403-disk-0/);
  });

  it('node status reflects running VMs; /cluster/resources lags for fresh VMs', async () => {
    const before = (await pve.api.get('/nodes/pve2/status')).body.data.memory.free;
    await pve.api.waitTask((await pve.api.post('/nodes/pve2/qemu/402/status/start')).body.data);
    const after = (await pve.api.get('/nodes/pve2/status')).body.data.memory.free;
    assert.equal(before - after, 2048 * 2 ** 20);
    const res = await pve.api.get('/cluster/resources', { type: 'vm' });
    const fresh = res.body.data.find((r: { vmid: number }) => r.vmid === 402);
    assert.equal(fresh.status, 'unknown');
    assert.equal(fresh.name, undefined);
    const status = await pve.api.get('/nodes/pve2/qemu/402/status/current');
    assert.equal(status.body.data.status, 'running', 'status/current is fresh');
  });

  it('tasks: unparsable and unknown UPIDs, listing, stopping', async () => {
    assert.deepEqual((await pve.api.get('/nodes/pve1/tasks/nope/status')).body.errors, { upid: 'unable to parse worker upid' });
    const bogus = 'UPID:pve1:00000001:00000001:00000001:qmstart:1:x@pve:';
    assert.equal((await pve.api.get(`/nodes/pve1/tasks/${encodeURIComponent(bogus)}/status`)).reason, 'no such task');
    const list = await pve.api.get('/nodes/pve1/tasks', { typefilter: 'qmclone' });
    assert.ok(list.body.data.length >= 2);
    assert.ok(list.body.data.every((t: { type: string; status: string }) => t.type === 'qmclone' && t.status));
    const slow = await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 404, full: 1 });
    assert.equal(pve.sim.state.vm(404)?.lock, 'clone');
    const del = await pve.api.del(`/nodes/pve1/tasks/${encodeURIComponent(slow.body.data)}`);
    assert.equal(del.status, 200);
    assert.equal(pve.sim.state.task(slow.body.data)?.exitstatus, 'interrupted by signal');
    assert.equal(pve.sim.state.vm(404), undefined, 'an interrupted clone leaves no VM');
  });

  it('transport limits: HEAD, oversized bodies, unsupported content types', async () => {
    const raw = (method: string, path: string, body?: string, type?: string) =>
      new Promise<{ status: number; reason: string }>((resolve, reject) => {
        const req = request(`${pve.sim.apiUrl}${path}`, { method, headers: { authorization: pve.sim.token.authorization, ...(type ? { 'content-type': type } : {}) } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, reason: res.statusMessage! }));
        });
        req.on('error', reject);
        req.end(body);
      });
    assert.deepEqual(await raw('HEAD', '/version'), { status: 501, reason: "method 'HEAD' not available" });
    assert.deepEqual(await raw('PUT', '/nodes/pve1/qemu/403/config', `description=${'a'.repeat(600 * 1024)}`), { status: 501, reason: 'for data too large' });
    assert.equal((await raw('PUT', '/nodes/pve1/qemu/403/config', 'x', 'text/plain')).status, 506);
    assert.deepEqual(pve.sim.violations, []);
  });
});
