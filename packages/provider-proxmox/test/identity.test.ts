/**
 * Identity: destroy trusts only the tag the VM carries. A look-alike name without the tag, another
 * instance's tag, or a forged VM at a recycled VMID is never touched; list() only sees this
 * instance's prefix.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Provider } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { lease, providerFor, startSim, template } from './helpers/setup.ts';

describe('proxmox: identity', () => {
  let sim: PveSimulator;
  let provider: Provider;

  before(async () => {
    sim = await startSim();
    provider = providerFor(sim, 'idt');
  });
  after(async () => {
    await provider?.close?.();
    await sim?.close();
  });

  it('a look-alike name without the tag is left alone', async () => {
    const { identity } = lease('idt');
    sim.state.addVm({ vmid: 700, name: identity.slice(0, 60), status: 'running', description: `identity: ${identity}` });
    assert.equal(await provider.destroy({ identity, external_id: '700', node: 'pve1' }), 'identity_mismatch');
    assert.equal(sim.state.vm(700)?.status, 'running');
  });

  it('another instance\'s tag is neither listed nor destroyed', async () => {
    const other = lease('other');
    sim.state.addVm({ vmid: 701, name: 'foreign', tags: other.identity, status: 'running' });
    assert.equal((await provider.list()).some((m) => m.external_id === '701'), false);
    const mine = lease('idt');
    assert.equal(await provider.destroy({ identity: mine.identity, external_id: '701', node: 'pve1' }), 'identity_mismatch');
    assert.ok(sim.state.vm(701));
    // Even the right VMID with the other instance's identity spelled differently stays.
    assert.equal(await provider.destroy({ identity: `${other.identity}x`, external_id: '701', node: 'pve1' }), 'identity_mismatch');
    assert.ok(sim.state.vm(701));
  });

  it('a VMID recycled by a VM with a forged tag is not destroyed by the old lease', async () => {
    const l = lease('idt');
    const machine = await provider.create({ ...l, template: template(), signal: AbortSignal.timeout(20_000) });
    const vmid = Number(machine.external_id);
    assert.equal(await provider.destroy(machine), 'destroyed');
    const forged = lease('idt');
    sim.state.addVm({ vmid, name: 'recycled', tags: `${forged.identity};keep`, status: 'running' });
    assert.equal(await provider.destroy(machine), 'identity_mismatch');
    assert.equal(sim.state.vm(vmid)?.name, 'recycled');
    // The forged one is listed as this instance's (its tag carries the prefix) under its own identity.
    assert.ok((await provider.list()).some((m) => m.identity === forged.identity));
  });

  it('the identity tag survives tag normalisation (lower-cased, sorted)', async () => {
    const l = { lease_id: 'ABC-def', identity: 'vmhub-idt-ABC-def' };
    const machine = await provider.create({ ...l, template: template(), signal: AbortSignal.timeout(20_000) });
    assert.deepEqual(sim.state.vm(Number(machine.external_id))?.tags, ['vmhub-idt-abc-def']);
    assert.equal(await provider.destroy(machine), 'destroyed');
    assert.deepEqual(sim.violations, []);
  });
});
