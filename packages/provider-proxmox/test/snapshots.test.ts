/**
 * Snapshots on the simulator, every request and response checked against the PVE schema: the
 * exact request sequences of snapshot, restore (rollback), fork and delete; a rollback that brings
 * back the disk and resumes from RAM (no boot); forks that start from the snapshot and diverge;
 * a snapshot outliving its lease's VM (kept as holder, deleted with its last snapshot); restore
 * onto another lease's machine (a new VM cloned from the snapshot); decoys with another identity
 * left alone; typed errors for what PVE refuses.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { snapshotIdentity, VmhubError, type MachineRef, type Provider, type SnapshotRef, type SnapshotResult } from '@vmhub/core';
import { simClient, type PveSimulator } from '@vmhub/pve-simulator';
import { lease, providerFor, stageRecorder, startSim, template } from './helpers/setup.ts';

const tpl = template({ resources: { memory_mb: 2048 } }, { channel: 'agent', agent_user: 'root' });
const signal = (): AbortSignal => AbortSignal.timeout(30_000);

/** The requests since the last reset, `METHOD /template`, repeated task-status polls folded into one. */
function sequence(sim: PveSimulator): string[] {
  const out: string[] = [];
  for (const r of sim.state.requests.log) {
    const e = r.endpoint ?? `${r.method} ${r.path}`;
    if (e.endsWith('/tasks/{upid}/status') && out.at(-1) === e) continue;
    out.push(e);
  }
  return out;
}

const Q = 'nodes/{node}/qemu/{vmid}';
const POLL = 'GET /nodes/{node}/tasks/{upid}/status';

async function rejects(p: Promise<unknown>, code: string, text: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(VmhubError.is(err), `a VmhubError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, text);
    return true;
  });
}

for (const mode of ['9', '8'] as const) describe(`proxmox: snapshots, restore, fork (simulator in PVE ${mode === '9' ? '9.1' : '8.4'} mode, schema-validated)`, () => {
  let sim: PveSimulator;
  let provider: Provider;
  const a = lease('snp');
  let machineA: MachineRef;
  let vmA: number;
  let s1: SnapshotResult;
  const s1Identity = snapshotIdentity('snp', randomUUID());

  const ready = async (m: MachineRef): Promise<void> => provider.ready(m, { signal: signal(), template: tpl, stage: stageRecorder().stage });

  before(async () => {
    sim = await startSim({
      mode,
      timing: { snapshotMs: 30, rollbackMs: 30, delSnapshotMs: 20 },
      storages: [
        { id: 'local-lvm', type: 'lvmthin' },
        { id: 'plain', type: 'lvm' },
        { id: 'tank', type: 'zfspool' },
      ],
    });
    provider = providerFor(sim, 'snp');
    machineA = await provider.create({ ...a, template: tpl, signal: signal() });
    vmA = Number(machineA.external_id);
    await ready(machineA);
    sim.state.writeGuestFile(vmA, '/srv/state', 'one');
  });
  after(async () => {
    await provider?.close?.();
    await sim?.close();
  });

  it('snapshotSupport: RAM and disk', () => {
    assert.deepEqual(provider.snapshotSupport!(tpl), { memory: true });
  });

  it('snapshot: GET config, GET snapshot, POST snapshot (vmstate), task, GET snapshot', async () => {
    sim.state.resetRequests();
    s1 = await provider.snapshot!(machineA, { identity: s1Identity, template: tpl, signal: signal() });
    assert.deepEqual(sequence(sim), [`GET /${Q}/config`, `GET /${Q}/snapshot`, `POST /${Q}/snapshot`, POLL, `GET /${Q}/snapshot`]);
    assert.match(s1.external_id, new RegExp(`^${vmA}/vmhub_[0-9a-f]{32}$`));
    assert.equal(s1.identity, s1Identity);
    assert.equal(s1.node, 'pve1');
    assert.equal(s1.memory, true);
    assert.equal(s1.size_bytes, 2048 * 2 ** 20);
    const [snap] = sim.state.snapshots(vmA);
    assert.equal(snap!.vmstate, true);
    assert.match(snap!.description, new RegExp(`^identity: ${s1Identity}$`, 'm'));
    assert.equal(sim.state.vm(vmA)!.status, 'running');
    // A repeated request finds its own snapshot: no second POST.
    sim.state.resetRequests();
    const again = await provider.snapshot!(machineA, { identity: s1Identity, template: tpl, signal: signal() });
    assert.deepEqual(again, s1);
    assert.deepEqual(sequence(sim), [`GET /${Q}/config`, `GET /${Q}/snapshot`]);
  });

  it('restore on the same VM: GET snapshot, GET config, POST rollback, task — disk back, running from RAM without a boot', async () => {
    sim.state.writeGuestFile(vmA, '/srv/state', 'two');
    sim.state.writeGuestFile(vmA, '/srv/later', 'written after the snapshot');
    sim.state.resetRequests();
    const r = await provider.restore!(machineA, s1, { template: tpl, signal: signal() });
    assert.equal(r, undefined, 'same MachineRef');
    assert.deepEqual(sequence(sim), [`GET /${Q}/snapshot`, `GET /${Q}/config`, `POST /${Q}/snapshot/{snapname}/rollback`, POLL]);
    const vm = sim.state.vm(vmA)!;
    assert.equal(vm.status, 'running');
    assert.equal(vm.agentReady, true, 'RAM restored: the agent answers at once');
    assert.deepEqual(vm.tags, [a.identity]);
    assert.equal(sim.state.readGuestFile(vmA, '/srv/state')!.toString(), 'one');
    assert.equal(sim.state.readGuestFile(vmA, '/srv/later'), undefined);
    assert.equal(await provider.state!(machineA), 'running');
  });

  let machineB: MachineRef;
  const b = lease('snp');

  it('fork: GET resources, GET snapshot, nextid, POST clone (snapname, full), task, PUT config — then it diverges', async () => {
    sim.state.resetRequests();
    machineB = await provider.create({ ...b, template: tpl, signal: signal(), from_snapshot: s1 });
    assert.deepEqual(sequence(sim), ['GET /cluster/resources', `GET /${Q}/snapshot`, 'GET /cluster/nextid', `POST /${Q}/clone`, POLL, `PUT /${Q}/config`]);
    const vmB = Number(machineB.external_id);
    assert.notEqual(vmB, vmA);
    const fork = sim.state.vm(vmB)!;
    assert.deepEqual(fork.tags, [b.identity]);
    assert.equal(fork.config.scsi0, `local-lvm:vm-${vmB}-disk-0,size=8G`, 'a full clone');
    assert.notEqual(fork.config.vmgenid, sim.state.vm(vmA)!.config.vmgenid, 'its own vmgenid');
    assert.notEqual(fork.config.sshkeys, sim.state.vm(vmA)!.config.sshkeys, 'its own lease key');
    assert.match(String(fork.config.description), new RegExp(`from snapshot: ${s1Identity}`));
    await ready(machineB);
    assert.equal(sim.state.readGuestFile(vmB, '/srv/state')!.toString(), 'one', 'starts from the snapshot');
    sim.state.writeGuestFile(vmB, '/srv/fork-only', 'b');
    assert.equal(sim.state.readGuestFile(vmA, '/srv/fork-only'), undefined, 'and diverges');
    // Idempotent by identity like every create.
    assert.equal((await provider.create({ ...b, template: tpl, signal: signal(), from_snapshot: s1 })).external_id, machineB.external_id);
  });

  let decoyRef: SnapshotRef;

  it('a decoy snapshot (same look, another identity) is neither used, deleted nor listed', async () => {
    const other = snapshotIdentity('other', randomUUID());
    const api = simClient(sim);
    const t = await api.post(`/nodes/pve1/qemu/${vmA}/snapshot`, { snapname: 'vmhub_decoy', vmstate: 1, description: `Managed by vmhub; deleted with its vmhub snapshot.\nidentity: ${other}` });
    assert.equal(await api.waitTask(t.body.data), 'OK');
    decoyRef = { identity: s1Identity, external_id: `${vmA}/vmhub_decoy`, node: 'pve1' };
    assert.equal(await provider.deleteSnapshot!(decoyRef), 'identity_mismatch');
    await rejects(provider.restore!(machineA, decoyRef, { template: tpl, signal: signal() }), 'NOT_FOUND', /carries another identity/);
    const listed = await provider.listSnapshots!();
    assert.deepEqual(listed.map((s) => s.identity), [s1Identity]);
    assert.equal(listed[0]!.external_id, s1.external_id);
    assert.ok(typeof listed[0]!.created_at === 'number');
    assert.ok(sim.state.vm(vmA)!.snapshots.includes('vmhub_decoy'));
  });

  it('destroy keeps a VM that holds snapshots as their holder: stopped, no lease tag, not listed; forks still work from it', async () => {
    assert.equal(await provider.destroy(machineA), 'destroyed');
    const held = sim.state.vm(vmA)!;
    assert.equal(held.status, 'stopped');
    assert.deepEqual(held.tags, ['vmhub-snp-snapshots']);
    assert.equal(await provider.state!(machineA), 'gone');
    assert.equal((await provider.list()).some((m) => m.external_id === String(vmA)), false);
    assert.deepEqual((await provider.listSnapshots!()).map((s) => s.identity), [s1Identity]);
    const c = lease('snp');
    const machineC = await provider.create({ ...c, template: tpl, signal: signal(), from_snapshot: s1 });
    await ready(machineC);
    assert.equal(sim.state.readGuestFile(Number(machineC.external_id), '/srv/state')!.toString(), 'one');
    assert.equal(await provider.destroy(machineC), 'destroyed');
    assert.equal(sim.state.vm(Number(machineC.external_id)), undefined, 'a VM without snapshots is deleted as before');
  });

  it('restore onto another lease\'s machine whose new VM cannot be made: the old one stays the lease\'s, pinned host key included', async () => {
    const oldVm = Number(machineB.external_id);
    await provider.pinSshHostKey!(machineB, 'SHA256-of-the-old-host-key');
    const before = await provider.sshAccess!(machineB, { template: tpl });
    sim.faults.failTasks({ type: 'qmclone', exitstatus: 'clone failed: No space left on device', count: 1 });
    await rejects(provider.restore!(machineB, s1, { template: tpl, signal: signal() }), 'HOST_CAPACITY', /No space left on device/);
    assert.deepEqual(sim.state.vm(oldVm)!.tags, [b.identity]);
    assert.equal(sim.state.vm(oldVm)!.status, 'running');
    assert.equal(sim.state.vms().filter((v) => v.tags.includes(b.identity)).length, 1, 'no second VM left');
    assert.deepEqual(await provider.sshAccess!(machineB, { template: tpl }), before);
    assert.equal(before?.hostKey, 'SHA256-of-the-old-host-key');
  });

  it('restore onto another lease\'s machine: a new VM cloned from the snapshot, made ready, then the old one destroyed', async () => {
    const oldVm = Number(machineB.external_id);
    const keyBefore = (await provider.sshAccess!(machineB, { template: tpl }))!.privateKey;
    const moved = await provider.restore!(machineB, s1, { template: tpl, signal: signal() });
    assert.ok(moved, 'a new MachineRef');
    const newVm = Number(moved.external_id);
    assert.notEqual(newVm, oldVm);
    assert.equal(moved.identity, b.identity);
    assert.equal(sim.state.vm(oldVm), undefined);
    const vm = sim.state.vm(newVm)!;
    assert.deepEqual(vm.tags, [b.identity]);
    assert.equal(vm.status, 'running');
    assert.equal(sim.state.readGuestFile(newVm, '/srv/state')!.toString(), 'one');
    assert.equal(sim.state.readGuestFile(newVm, '/srv/fork-only'), undefined);
    assert.equal(await provider.state!(moved), 'running');
    const access = await provider.sshAccess!(moved, { template: tpl });
    assert.equal(access?.privateKey, keyBefore, 'the lease keeps its key');
    assert.equal(access?.hostKey, undefined, 'the old VM\'s host key is forgotten: the new VM pins its own');
    machineB = moved;
  });

  it('delete: GET snapshot, (in turn) GET snapshot, GET config, DELETE snapshot, task; the holder stays for the decoy', async () => {
    sim.state.resetRequests();
    assert.equal(await provider.deleteSnapshot!(s1), 'destroyed');
    assert.deepEqual(sequence(sim), [`GET /${Q}/snapshot`, `GET /${Q}/snapshot`, `GET /${Q}/config`, `DELETE /${Q}/snapshot/{snapname}`, POLL]);
    assert.deepEqual(sim.state.vm(vmA)!.snapshots, ['vmhub_decoy'], 'the decoy is untouched');
    assert.equal(sim.state.volumes().some((v) => v.includes(`vm-${vmA}-state-vmhub_${s1.external_id.split('_')[1]}`)), false);
    assert.equal(await provider.deleteSnapshot!(s1), 'already_gone');
    assert.deepEqual(await provider.listSnapshots!(), []);
    assert.ok(sim.state.vm(vmA), 'a holder with a snapshot not ours is not swept');
  });

  it('the last snapshot of a holder is deleted with the holder VM', async () => {
    const e = lease('snp');
    const machineE = await provider.create({ ...e, template: tpl, signal: signal() });
    await ready(machineE);
    const s2 = await provider.snapshot!(machineE, { identity: snapshotIdentity('snp', randomUUID()), template: tpl, signal: signal() });
    assert.equal(await provider.destroy(machineE), 'destroyed');
    const vmE = Number(machineE.external_id);
    assert.ok(sim.state.vm(vmE), 'kept for its snapshot');
    sim.state.resetRequests();
    assert.equal(await provider.deleteSnapshot!(s2), 'destroyed');
    assert.deepEqual(sequence(sim), [`GET /${Q}/snapshot`, `GET /${Q}/snapshot`, `GET /${Q}/config`, `POST /${Q}/status/stop`, POLL, `DELETE /${Q}`, POLL, `GET /${Q}/config`]);
    assert.equal(sim.state.vm(vmE), undefined);
    assert.equal(sim.state.volumes().some((v) => v.includes(`vm-${vmE}-`)), false, 'disks and RAM state gone');
    assert.equal(await provider.deleteSnapshot!(s2), 'already_gone');
  });

  it('an empty holder (left by a crash) is removed by listSnapshots', async () => {
    sim.state.addVm({ vmid: 880, name: 'empty-holder', tags: 'vmhub-snp-snapshots' });
    assert.deepEqual(await provider.listSnapshots!(), []);
    assert.equal(sim.state.vm(880), undefined);
  });

  it('typed errors: storage without snapshots, ZFS fork, another template, unknown snapshot, failed and locked tasks, a VM not the lease\'s', async () => {
    const api = simClient(sim);
    sim.state.addVm({ vmid: 801, name: 'lvm-vm', storage: 'plain', status: 'running', tags: 'vmhub-snp-00000000-0000-0000-0000-000000000801' });
    const lvm: MachineRef = { identity: 'vmhub-snp-00000000-0000-0000-0000-000000000801', external_id: '801', node: 'pve1' };
    await rejects(provider.snapshot!(lvm, { identity: snapshotIdentity('snp', randomUUID()), template: tpl, signal: signal() }), 'CAPABILITY_UNAVAILABLE', /storage without snapshots/);

    sim.state.addVm({ vmid: 802, name: 'zfs-vm', storage: 'tank', status: 'running', tags: 'vmhub-snp-00000000-0000-0000-0000-000000000802' });
    const zfs: MachineRef = { identity: 'vmhub-snp-00000000-0000-0000-0000-000000000802', external_id: '802', node: 'pve1' };
    const zs = await provider.snapshot!(zfs, { identity: snapshotIdentity('snp', randomUUID()), template: tpl, signal: signal() });
    assert.equal(zs.memory, true);
    await rejects(provider.create({ ...lease('snp'), template: tpl, signal: signal(), from_snapshot: zs }), 'CAPABILITY_UNAVAILABLE', /cannot copy a snapshot \(ZFS\)/);

    const other = template({ id: 'other-template' }, { channel: 'agent' });
    await rejects(provider.restore!(zfs, zs, { template: other, signal: signal() }), 'INVALID_REQUEST', /is of template "debian", not "other-template"/);
    await rejects(provider.create({ ...lease('snp'), template: other, signal: signal(), from_snapshot: zs }), 'INVALID_REQUEST', /is of template "debian"/);

    const unknown: SnapshotRef = { identity: snapshotIdentity('snp', randomUUID()), external_id: `802/vmhub_${'0'.repeat(32)}`, node: 'pve1' };
    await rejects(provider.restore!(zfs, unknown, { template: tpl, signal: signal() }), 'NOT_FOUND', /no longer exists/);
    await rejects(provider.create({ ...lease('snp'), template: tpl, signal: signal(), from_snapshot: unknown }), 'NOT_FOUND', /no longer exists/);
    assert.equal(await provider.deleteSnapshot!(unknown), 'already_gone');
    assert.equal(await provider.deleteSnapshot!({ ...unknown, external_id: '999/vmhub_x0' }), 'already_gone', 'VM gone');

    sim.faults.failTasks({ type: 'qmsnapshot', exitstatus: 'VM 802 qmp command \'savevm-start\' failed - unable to save state', count: 1 });
    await rejects(provider.snapshot!(zfs, { identity: snapshotIdentity('snp', randomUUID()), template: tpl, signal: signal() }), 'PROVISION_FAILED', /savevm-start/);
    sim.faults.failTasks({ type: 'qmrollback', exitstatus: 'rollback failed: No space left on device', count: 1 });
    await rejects(provider.restore!(zfs, zs, { template: tpl, signal: signal() }), 'HOST_CAPACITY', /No space left on device/);
    assert.equal(sim.state.vm(802)!.lock, undefined, 'a failed task leaves no lock');
    sim.faults.failTasks({ type: 'qmdelsnapshot', exitstatus: 'VM is locked (backup)', count: 99 });
    const strict = providerFor(sim, 'snp', { lock_retries: 1 });
    await rejects(strict.deleteSnapshot!(zs), 'LOCK_CONTENTION', /VM is locked \(backup\)/);
    await strict.close?.();
    sim.faults.clear();
    assert.ok(sim.state.vm(802)!.snapshots.length === 1, 'still there');

    // A VM that no longer carries the lease's tag is never snapshot or rolled back.
    sim.state.addVm({ vmid: 803, name: 'foreign', status: 'running', tags: 'someone-else' });
    const foreign: MachineRef = { identity: 'vmhub-snp-00000000-0000-0000-0000-000000000803', external_id: '803', node: 'pve1' };
    await rejects(provider.snapshot!(foreign, { identity: snapshotIdentity('snp', randomUUID()), template: tpl, signal: signal() }), 'NOT_FOUND', /no longer carries the identity tag/);
    const t = await api.post('/nodes/pve1/qemu/803/snapshot', { snapname: 'vmhub_x1', description: `identity: ${unknown.identity}` });
    await api.waitTask(t.body.data);
    await rejects(provider.restore!(foreign, { ...unknown, external_id: '803/vmhub_x1' }, { template: tpl, signal: signal() }), 'NOT_FOUND', /no longer carries the identity tag/);
    assert.deepEqual(sim.state.vm(803)!.snapshots, ['vmhub_x1']);
  });

  it('no schema violation, no unimplemented endpoint', () => {
    assert.deepEqual(sim.violations, []);
    assert.deepEqual(sim.state.requests.unimplemented, {});
  });
});
