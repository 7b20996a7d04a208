/**
 * state(): the lease's VM read through status/current and trusted only by its identity tag.
 * Running, suspended (QMP paused) and stopped VMs are told apart; a VM that migrated is still
 * found (by VMID in /cluster/resources); a destroyed VM, a recycled VMID with another tag or a
 * forged identity is 'gone' and never throws; an unreachable endpoint throws NODE_UNAVAILABLE
 * (so a lease is not ended because the API could not be asked).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VmhubError, type MachineRef, type Provider } from '@vmhub/core';
import { simClient, type PveSimulator } from '@vmhub/pve-simulator';
import { lease, providerFor, startSim, template } from './helpers/setup.ts';

describe('proxmox: state()', () => {
  let sim: PveSimulator;
  let provider: Provider;
  let machine: MachineRef;
  let vmid: number;

  const power = async (action: 'suspend' | 'resume' | 'stop' | 'start'): Promise<void> => {
    const api = simClient(sim);
    const r = await api.post(`/nodes/${sim.state.vm(vmid)!.node}/qemu/${vmid}/status/${action}`);
    assert.equal(r.status, 200, `${action}: ${r.reason}`);
    await api.waitTask(r.body.data);
  };

  before(async () => {
    sim = await startSim({ nodes: [{ name: 'pve1' }, { name: 'pve2' }] });
    provider = providerFor(sim, 'st');
    machine = await provider.create({ ...lease('st'), template: template({}, { channel: 'agent' }), signal: AbortSignal.timeout(20_000) });
    await provider.ready(machine, { signal: AbortSignal.timeout(20_000), stage: () => undefined, template: template({}, { channel: 'agent' }) });
    vmid = Number(machine.external_id);
  });
  after(async () => {
    await provider?.close?.();
    await sim?.close();
  });

  it('running → suspended is stopped → resumed is running → stopped is stopped → started is running', async () => {
    assert.equal(await provider.state!(machine), 'running');
    await power('suspend');
    assert.equal(sim.state.vm(vmid)?.status, 'running', 'a suspended VM still has its QEMU process');
    assert.equal(await provider.state!(machine), 'stopped');
    await power('resume');
    assert.equal(await provider.state!(machine), 'running');
    await power('stop');
    assert.equal(await provider.state!(machine), 'stopped');
    await power('start');
    assert.equal(await provider.state!(machine), 'running');
  });

  it('a VM that moved to another node is still found by its VMID', async () => {
    sim.state.raw(vmid)!.node = 'pve2';
    try {
      assert.equal(await provider.state!(machine), 'running');
      assert.equal(await provider.state!({ ...machine, node: undefined, details: {} }), 'running', 'a ref without a node');
    } finally {
      sim.state.raw(vmid)!.node = 'pve1';
    }
  });

  it('a forged identity, another VMID or a non-VMID is gone', async () => {
    assert.equal(await provider.state!({ ...machine, identity: lease('st').identity }), 'gone');
    assert.equal(await provider.state!({ ...machine, external_id: '99999' }), 'gone');
    assert.equal(await provider.state!({ ...machine, external_id: 'not-a-vmid' }), 'gone');
  });

  it('an unreachable endpoint throws NODE_UNAVAILABLE (retryable), not "gone"', async () => {
    const ep = await sim.addEndpoint();
    const p = providerFor({ ...sim, hostPort: ep.hostPort } as PveSimulator, 'st', { retries: 0 });
    assert.equal(await p.state!({ ...machine, details: {} }), 'running', 'through the second endpoint');
    await ep.close();
    await assert.rejects(p.state!({ ...machine, details: {} }), (e: unknown) => VmhubError.is(e) && e.code === 'NODE_UNAVAILABLE' && e.retryable === true);
    await p.close?.();
  });

  it('destroyed is gone (never throws); a recycled VMID with another tag is gone for the old lease', async () => {
    assert.equal(await provider.destroy(machine), 'destroyed');
    assert.equal(await provider.state!(machine), 'gone');
    sim.state.addVm({ vmid, name: 'recycled', tags: `${lease('st').identity};keep`, status: 'running' });
    assert.equal(await provider.state!(machine), 'gone');
    assert.deepEqual(sim.violations, []);
  });
});
