/**
 * proxmox: restart() and stats() against the simulator, which checks every request against
 * Proxmox's API schema. Graceful: exactly `POST /nodes/{node}/qemu/{vmid}/status/reboot
 * {timeout: 60}`, its task polled; a VM whose reboot task fails (the guest did not shut down in
 * time) is reset (`status/reset`); hard: `status/reset` only. Each time the guest starts over (its
 * agent goes away until it has booted, its files stay), the VM keeps its
 * VMID and identity tag, and ready() walks its stages again. stats(): status/current's cpu, mem,
 * maxmem and uptime, no disk figure; a reboot starts the VM's process again (uptime from 0), a reset
 * does not (as in qemu-server).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MachineRef, Provider } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { lease, providerFor, stageRecorder, startSim, template } from './helpers/setup.ts';

describe('proxmox: restart() and stats()', () => {
  let sim: PveSimulator;
  let provider: Provider;
  let machine: MachineRef;
  let vmid: number;
  const t = template({}, { channel: 'agent' });
  const signal = () => AbortSignal.timeout(30_000);
  /** The power requests the provider sent since `from` (index into the simulator's log). */
  const power = (from: number) => sim.state.requests.log.slice(from).filter((r) => /\/status\/(reboot|reset|start|stop|shutdown)$/.test(r.path));

  before(async () => {
    sim = await startSim();
    provider = providerFor(sim, 'rs');
    machine = await provider.create({ ...lease('rs'), template: t, signal: signal() });
    await provider.ready(machine, { signal: signal(), stage: () => undefined, template: t });
    vmid = Number(machine.external_id);
  });
  after(async () => {
    await provider?.close?.();
    await sim?.close();
  });

  it('declares restarts with a graceful reboot first, and stats', () => {
    assert.deepEqual(provider.restartSupport!(t), { graceful: true });
    assert.equal(typeof provider.stats, 'function');
    assert.equal(provider.logs, undefined, 'Proxmox\'s API has no console log of a VM');
  });

  it('graceful: exactly POST …/status/reboot {timeout: 60}, schema-valid; the guest starts over; ready() again', async () => {
    sim.state.writeGuestFile(vmid, '/home/kept.txt', 'on the disk');
    const from = sim.state.requests.log.length;
    const { stage, stages } = stageRecorder();
    await provider.restart!(machine, { template: t, hard: false, signal: signal(), stage });
    const sent = power(from);
    assert.deepEqual(sent.map((r) => `${r.endpoint} ${r.status}`), ['POST /nodes/{node}/qemu/{vmid}/status/reboot 200']);
    assert.deepEqual(sent[0]!.params, { node: 'pve1', vmid, timeout: 60 });
    assert.match(stages.get('reboot')!.detail!, /status\/reboot: shut down and started/);
    assert.ok(sim.state.requests.validated.has('POST /nodes/{node}/qemu/{vmid}/status/reboot'), 'the answer passed the schema too');
    // Its agent is gone until the guest has booted again: ready() waits for it, stage by stage.
    const again = stageRecorder();
    await provider.ready(machine, { signal: signal(), stage: again.stage, template: t });
    assert.deepEqual([...again.stages.keys()], ['clone', 'start', 'agent', 'address', 'channel']);
    assert.equal(sim.state.vm(vmid)?.status, 'running');
    assert.equal(sim.state.readGuestFile(vmid, '/home/kept.txt')?.toString(), 'on the disk');
    const stats = await provider.stats!(machine, { template: t, signal: signal() });
    assert.ok(stats.uptime_seconds! < 5, `a reboot starts the VM's process again: ${JSON.stringify(stats)}`);
    assert.ok(stats.memory_bytes! > 0 && stats.memory_limit_bytes! >= stats.memory_bytes!, JSON.stringify(stats));
    assert.equal(typeof stats.cpu_percent, 'number');
    assert.equal('disk_bytes' in stats, false, 'Proxmox gives no disk usage of a VM: absent, not 0');
  });

  it('a reboot whose guest does not shut down in time: reset after it', async () => {
    sim.faults.failTasks({ type: 'qmreboot', exitstatus: 'VM quit/powerdown failed - got timeout', count: 1 });
    const from = sim.state.requests.log.length;
    const { stage, stages } = stageRecorder();
    await provider.restart!(machine, { template: t, hard: false, signal: signal(), stage });
    assert.deepEqual(power(from).map((r) => `${r.endpoint} ${r.status}`), ['POST /nodes/{node}/qemu/{vmid}/status/reboot 200', 'POST /nodes/{node}/qemu/{vmid}/status/reset 200']);
    assert.match(stages.get('reboot')!.detail!, /status\/reboot failed \(.*got timeout.*\): status\/reset/);
    await provider.ready(machine, { signal: signal(), stage: () => undefined, template: t });
  });

  it('hard: POST …/status/reset only; the same process (uptime goes on), the guest starts over', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const pid = sim.state.raw(vmid)?.pid;
    const before = await provider.stats!(machine, { template: t, signal: signal() });
    const from = sim.state.requests.log.length;
    await provider.restart!(machine, { template: t, hard: true, signal: signal(), stage: () => undefined });
    const sent = power(from);
    assert.deepEqual(sent.map((r) => `${r.endpoint} ${r.status}`), ['POST /nodes/{node}/qemu/{vmid}/status/reset 200']);
    assert.deepEqual(sent[0]!.params, { node: 'pve1', vmid });
    assert.equal(sim.state.raw(vmid)?.pid, pid, 'a reset keeps the QEMU process');
    const after = await provider.stats!(machine, { template: t, signal: signal() });
    assert.ok(after.uptime_seconds! >= before.uptime_seconds!, `uptime goes on through a reset: ${before.uptime_seconds} → ${after.uptime_seconds}`);
    await provider.ready(machine, { signal: signal(), stage: () => undefined, template: t });
  });

  it('a VM that lost its identity tag is not restarted', async () => {
    const from = sim.state.requests.log.length;
    await assert.rejects(provider.restart!({ ...machine, identity: 'vmhub-rs-00000000-0000-4000-8000-000000000000' }, { template: t, hard: true, signal: signal(), stage: () => undefined }), /no longer carries the identity tag/);
    assert.deepEqual(power(from), [], 'nothing was sent');
  });
});
