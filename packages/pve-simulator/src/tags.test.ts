import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeTags, simClient } from './index.ts';
import { useSimulator } from '../test/helpers/simulator.ts';

describe('pve-simulator: tags', () => {
  it('normalises like get_unique_tags: lower-case, de-duplicated, sorted, ;-joined', () => {
    assert.equal(normalizeTags('Zeta, alpha;ALPHA  vmhub-X-1'), 'alpha;vmhub-x-1;zeta');
    assert.equal(normalizeTags('b;a;b'), 'a;b');
  });

  const pve = useSimulator({ tls: false, tagAccess: 'list', tagAllowList: ['allowed'], tokens: [
    { tokenId: 'u@pve!t', secret: 's', acl: [{ path: '/vms', roles: ['PVEVMAdmin'] }] },
    { tokenId: 'root@pam!t', secret: 'r', acl: [{ path: '/', roles: ['Administrator'] }] },
  ] });

  it('stores the normalised form and shows it everywhere', async () => {
    const admin = simClient(pve.sim, 'PVEAPIToken=root@pam!t=r');
    assert.equal((await admin.put('/nodes/pve1/qemu/9000/config', { tags: 'B,a  C;a' })).status, 200);
    assert.equal(pve.sim.state.vm(9000)?.tagsRaw, 'a;b;c');
    const list = await admin.get('/nodes/pve1/qemu');
    assert.equal(list.body.data[0].tags, 'a;b;c');
    const res = await admin.get('/cluster/resources', { type: 'vm' });
    assert.equal(res.body.data[0].tags, 'a;b;c');
    assert.equal((await admin.put('/nodes/pve1/qemu/9000/config', { delete: 'tags' })).status, 200);
    assert.equal(pve.sim.state.vm(9000)?.tagsRaw, undefined);
  });

  it('applies datacenter user-tag-access to tokens without Sys.Modify on /', async () => {
    const denied = await pve.api.put('/nodes/pve1/qemu/9000/config', { tags: 'allowed;other' });
    assert.equal(denied.status, 403);
    assert.equal(denied.reason, "Permission check failed (/, Sys.Modify for modifying tag 'other')");
    assert.equal((await pve.api.put('/nodes/pve1/qemu/9000/config', { tags: 'allowed' })).status, 200);
    assert.deepEqual(pve.sim.violations, []);
  });
});
