/**
 * Placement and races: the node holding the golden template with the most free memory, offline
 * nodes skipped, template node constraints honoured, capacity refused with HOST_CAPACITY; VMID
 * races, lock contention and failing clone tasks retried (bounded), never silently "succeeding".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VmhubError, type Provider } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { lease, providerFor, startSim, template } from './helpers/setup.ts';

const GiB = 1024 ** 3;

describe('proxmox: placement and races', () => {
  let sim: PveSimulator;
  let provider: Provider;
  const mk = (opts: Record<string, unknown> = {}, extra = {}) => provider.create({ ...lease('plc'), template: template(extra, opts), signal: AbortSignal.timeout(20_000) });

  before(async () => {
    sim = await startSim({
      nodes: [{ name: 'pve1', memoryTotal: 64 * GiB }, { name: 'pve2', memoryTotal: 128 * GiB }],
      vms: [
        { vmid: 9000, node: 'pve1', name: 'debian-golden', template: true },
        { vmid: 9001, node: 'pve2', name: 'debian-golden', template: true },
      ],
    });
    provider = providerFor(sim, 'plc', { lock_retries: 4 });
  });
  after(async () => {
    for (const m of await provider.list()) await provider.destroy(m);
    await provider?.close?.();
    await sim?.close();
  });

  it('picks the node with the most free memory, skips offline nodes, honours provider_options.nodes', async () => {
    assert.equal((await mk()).node, 'pve2');
    sim.state.setNodeOnline('pve2', false);
    assert.equal((await mk()).node, 'pve1');
    sim.state.setNodeOnline('pve2', true);
    assert.equal((await mk({ nodes: ['pve1'] })).node, 'pve1');
  });

  it('full_clone makes a full clone (own disk), the default a linked one (on the base image)', async () => {
    const full = await mk({ full_clone: true, storage: 'local-lvm', nodes: ['pve1'] });
    assert.match(String(sim.state.vm(Number(full.external_id))?.config.scsi0), /^local-lvm:vm-\d+-disk-0/);
    const linked = await mk({ nodes: ['pve1'] });
    assert.match(String(sim.state.vm(Number(linked.external_id))?.config.scsi0), /^local-lvm:base-9000-disk-0\/vm-\d+-disk-0/);
  });

  it('capacity and missing templates are typed errors', async () => {
    await assert.rejects(mk({}, { resources: { memory_mb: 1024 * 1024 } }), (e: unknown) => VmhubError.is(e) && e.code === 'HOST_CAPACITY');
    await assert.rejects(provider.create({ ...lease('plc'), template: template({ golden: 'no-such-golden' }), signal: AbortSignal.timeout(5000) }),
      (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND' && /no-such-golden/.test(e.message));
    const av = await provider.availability(template({ golden: 'no-such-golden' }));
    assert.equal(av.availability, 'unavailable');
    assert.match(av.reason ?? '', /not found/);
    sim.state.setNodeOnline('pve1', false);
    sim.state.setNodeOnline('pve2', false);
    await assert.rejects(mk(), (e: unknown) => VmhubError.is(e) && e.code === 'NODE_UNAVAILABLE');
    sim.state.setNodeOnline('pve1', true);
    sim.state.setNodeOnline('pve2', true);
  });

  it('a VMID taken between nextid and clone is retried with a new one', async () => {
    sim.faults.raceNextId(2);
    const m = await mk();
    const vm = sim.state.vm(Number(m.external_id));
    assert.ok(vm?.tags.includes(m.identity));
    assert.equal(sim.state.vms().filter((v) => v.name?.startsWith('racer-')).length, 2);
  });

  it('lock contention on clone and config is retried; a failed clone task is an error, not a VM', async () => {
    const f1 = sim.faults.inject({ kind: 'lock', match: { method: 'POST', path: /\/clone$/ }, count: 2 });
    const f2 = sim.faults.inject({ kind: 'lock', match: { method: 'PUT', path: /\/config$/ }, count: 1, message: 'clone' });
    const m = await mk();
    assert.ok(sim.state.vm(Number(m.external_id)));
    sim.faults.remove(f1);
    sim.faults.remove(f2);
    sim.faults.failTasks({ type: 'qmclone', exitstatus: 'clone failed: storage went away', count: 10 });
    const before = sim.state.vms().length;
    await assert.rejects(mk(), (e: unknown) => VmhubError.is(e) && /storage went away/.test(e.message));
    assert.equal(sim.state.vms().length, before, 'no half-made VM left');
    sim.faults.clear();
  });

  it('a clone whose answer was lost is adopted, not duplicated', async () => {
    sim.faults.inject({ kind: 'drop', phase: 'after', match: { method: 'POST', path: /\/clone$/ }, count: 1 });
    const before = sim.state.vms().length;
    const m = await mk();
    assert.equal(sim.state.vms().length, before + 1);
    assert.ok(sim.state.vm(Number(m.external_id))?.tags.includes(m.identity));
    sim.faults.clear();
  });

  it('a start task that fails surfaces in ready with the exit status', async () => {
    const m = await mk();
    sim.faults.failTasks({ type: 'qmstart', exitstatus: 'start failed: QEMU exited with code 1', count: 10 });
    const stages: string[] = [];
    await assert.rejects(provider.ready(m, { signal: AbortSignal.timeout(10_000), stage: (n, s) => stages.push(`${n}:${s}`), template: template() }),
      (e: unknown) => VmhubError.is(e) && e.code === 'PROVISION_FAILED' && /QEMU exited/.test(e.message));
    assert.ok(stages.includes('start:failed'));
    sim.faults.clear();
    assert.deepEqual(sim.violations, []);
  });
});
