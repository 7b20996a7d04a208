import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startPveSimulator, simClient, type PveSimulator, type SimClient } from './index.ts';

const T = 'ci@pve!provider';

describe('pve-simulator: token privileges', () => {
  let sim: PveSimulator;
  let admin: SimClient;
  let limited: SimClient;
  before(async () => {
    sim = await startPveSimulator({
      tls: false,
      pools: [{ poolid: 'vmhub' }],
      tokens: [
        { tokenId: 'root@pam!admin', secret: 'a', acl: [{ path: '/', roles: ['Administrator'] }] },
        {
          tokenId: T,
          secret: 'p',
          acl: [
            { path: '/vms/9000', privs: ['VM.Audit'] },
            { path: '/pool/vmhub', roles: ['PVEVMAdmin'] },
            { path: '/storage/local-lvm', roles: ['PVEDatastoreUser'] },
            { path: '/sdn/zones/localnetwork', roles: ['PVESDNUser'] },
          ],
        },
      ],
      timing: { cloneMs: 10 },
    });
    admin = simClient(sim);
    limited = simClient(sim, `PVEAPIToken=${T}=p`);
  });
  after(() => sim.close());

  it('answers 403 with the real message shape for a missing privilege', async () => {
    const r = await limited.post('/nodes/pve1/qemu/9000/clone', { newid: 150, pool: 'vmhub' });
    assert.equal(r.status, 403);
    assert.equal(r.reason, 'Permission check failed (/vms/9000, VM.Clone)');
    assert.deepEqual(r.body, { data: null, message: 'Permission check failed (/vms/9000, VM.Clone)\n' });
  });

  it('names any-of privileges joined by | and reports failed or-checks plainly', async () => {
    const agent = await limited.post('/nodes/pve1/qemu/9000/agent/ping');
    assert.equal(agent.reason, 'Permission check failed (/vms/9000, VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted)');
    sim.state.addToken({ tokenId: 'ci@pve!cloner', secret: 'c', acl: [{ path: '/vms/9000', privs: ['VM.Clone'] }] });
    const noAlloc = await simClient(sim, 'PVEAPIToken=ci@pve!cloner=c').post('/nodes/pve1/qemu/9000/clone', { newid: 151 });
    assert.equal(noAlloc.reason, 'Permission check failed');
    const pool = await simClient(sim, 'PVEAPIToken=ci@pve!cloner=c').post('/nodes/pve1/qemu/9000/clone', { newid: 151, pool: 'nope' });
    assert.equal(pool.status, 403);
  });

  it('lets a pool-scoped token clone into its pool and manage the clone', async () => {
    sim.state.addToken({
      tokenId: 'ci@pve!pool',
      secret: 'q',
      acl: [
        { path: '/vms/9000', privs: ['VM.Clone', 'VM.Audit'] },
        { path: '/pool/vmhub', roles: ['PVEVMAdmin'] },
        { path: '/storage/local-lvm', roles: ['PVEDatastoreUser'] },
        { path: '/sdn/zones/localnetwork', roles: ['PVESDNUser'] },
      ],
    });
    const api = simClient(sim, 'PVEAPIToken=ci@pve!pool=q');
    const clone = await api.post('/nodes/pve1/qemu/9000/clone', { newid: 160, pool: 'vmhub' });
    assert.equal(clone.status, 200, clone.reason);
    assert.equal(await api.waitTask(clone.body.data), 'OK');
    assert.equal(sim.state.vm(160)?.pool, 'vmhub');
    const put = await api.put('/nodes/pve1/qemu/160/config', { tags: 'vmhub-a-b' });
    assert.equal(put.status, 200, put.reason);
    // the pool grant reaches the VM; nothing else is visible
    const vms = await api.get('/cluster/resources', { type: 'vm' });
    assert.deepEqual(vms.body.data.map((v: { vmid: number }) => v.vmid).sort(), [160, 9000]);
    const storageless = await simClient(sim, `PVEAPIToken=${T}=p`).get('/nodes/pve1/qemu/160/status/current');
    assert.equal(storageless.status, 200);
  });

  it('checks Datastore.AllocateSpace on the target storage during clone', async () => {
    sim.state.addToken({ tokenId: 'ci@pve!nostore', secret: 'n', acl: [{ path: '/vms', roles: ['PVEVMAdmin'] }, { path: '/sdn', roles: ['PVESDNUser'] }] });
    const r = await simClient(sim, 'PVEAPIToken=ci@pve!nostore=n').post('/nodes/pve1/qemu/9000/clone', { newid: 170 });
    assert.equal(r.reason, 'Permission check failed (/storage/local-lvm, Datastore.AllocateSpace)');
  });

  it('answers /access/permissions as path -> {privilege: propagate}', async () => {
    const r = await limited.get('/access/permissions');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data['/vms/9000'], { 'VM.Audit': 1 });
    assert.equal(r.body.data['/pool/vmhub']['VM.Clone'], 1);
    assert.deepEqual(r.body.data['/'], {}, 'nothing granted on /');
    const one = await limited.get('/access/permissions', { path: '/storage/local-lvm' });
    assert.deepEqual(Object.keys(one.body.data), ['/storage/local-lvm']);
    assert.deepEqual(one.body.data['/storage/local-lvm'], { 'Datastore.AllocateSpace': 1, 'Datastore.Audit': 1 });
    const other = await limited.get('/access/permissions', { userid: 'root@pam!admin' });
    assert.equal(other.reason, 'Permission check failed (/access, Sys.Audit)');
    const byAdmin = await admin.get('/access/permissions', { userid: T, path: '/vms/9000' });
    assert.deepEqual(byAdmin.body.data, { '/vms/9000': { 'VM.Audit': 1 } });
  });

  it('shows other tokens\' tasks only with Sys.Audit on the node', async () => {
    const start = await admin.post('/nodes/pve1/qemu/9000/status/stop');
    const r = await limited.get(`/nodes/pve1/tasks/${encodeURIComponent(start.body.data)}/status`);
    assert.equal(r.reason, 'Permission check failed (/nodes/pve1, Sys.Audit)');
    assert.deepEqual(sim.violations, []);
  });
});
