import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { simClient } from './index.ts';
import { useSimulator } from '../test/helpers/simulator.ts';

const MONITOR_ONLY = { tokenId: 'ci@pve!mon', secret: 'm', acl: [{ path: '/vms', privs: ['VM.Audit', 'VM.Monitor', 'VM.PowerMgmt'] }] };
const AGENT9 = { tokenId: 'ci@pve!ga', secret: 'g', acl: [{ path: '/vms', privs: ['VM.Audit', 'VM.GuestAgent.Audit', 'VM.GuestAgent.FileRead', 'VM.PowerMgmt'] }] };

describe('pve-simulator: PVE 8.4 and 9.1 modes', () => {
  const pve = useSimulator({
    tls: false,
    mode: '8',
    vms: [{ vmid: 9000, template: true, name: 'golden' }, { vmid: 200, name: 'running', status: 'running' }],
    guest: { agentDelayMs: 0 },
  }, (s) => {
    s.state.addToken(MONITOR_ONLY);
    s.state.addToken(AGENT9);
    s.state.writeGuestFile(200, '/etc/hostname', 'running\n');
  });

  it('8: reports 8.4, checks VM.Monitor for the agent, rejects 9.1-only parameters', async () => {
    assert.equal(pve.sim.mode, '8');
    assert.deepEqual((await pve.api.get('/version')).body.data, { version: '8.4.14', release: '8.4', repoid: 'b0c1d2e3f4a5b6c7' });
    const mon = simClient(pve.sim, 'PVEAPIToken=ci@pve!mon=m');
    assert.equal((await mon.post('/nodes/pve1/qemu/200/agent/ping')).status, 200);
    const ga = simClient(pve.sim, 'PVEAPIToken=ci@pve!ga=g');
    assert.equal((await ga.post('/nodes/pve1/qemu/200/agent/ping')).reason, 'Permission check failed (/vms/200, VM.Monitor)');
    const count = await pve.api.get('/nodes/pve1/qemu/200/agent/file-read', { file: '/etc/hostname', count: 3 });
    assert.equal(count.status, 400);
    assert.equal(count.body.errors.count, 'property is not defined in schema and the schema does not allow additional properties');
    const plain = await pve.api.get('/nodes/pve1/qemu/200/agent/file-read', { file: '/etc/hostname' });
    assert.equal(plain.body.data.content, 'running\n');
  });

  it('9: switching mode switches schema, privileges and version; state is kept', async () => {
    pve.sim.setMode('9');
    assert.equal((await pve.api.get('/version')).body.data.release, '9.1');
    const mon = simClient(pve.sim, 'PVEAPIToken=ci@pve!mon=m');
    assert.equal((await mon.post('/nodes/pve1/qemu/200/agent/ping')).reason, 'Permission check failed (/vms/200, VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted)');
    const ga = simClient(pve.sim, 'PVEAPIToken=ci@pve!ga=g');
    assert.equal((await ga.post('/nodes/pve1/qemu/200/agent/ping')).status, 200);
    const part = await ga.get('/nodes/pve1/qemu/200/agent/file-read', { file: '/etc/hostname', count: 3, offset: 1 });
    assert.deepEqual(part.body.data, { content: 'unn', 'bytes-read': 3, truncated: 1 });
    assert.deepEqual(pve.sim.violations, []);
  });
});
