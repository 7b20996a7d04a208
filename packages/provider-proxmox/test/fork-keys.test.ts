/**
 * A fork's SSH keys on the simulator (schema-validated): the snapshot's disk holds the SOURCE
 * lease's key in the cloud-init user's authorized_keys (seeded as cloud-init leaves it); the fork
 * is marked in its MachineRef (details.forked_from), and readiness' `keys` stage — after the
 * agent answers, before address and channel — leaves exactly the fork's own key there, owned by
 * the user, mode 0600 in a 0700 `.ssh`. A write the guest refuses is PROVISION_FAILED naming the
 * VM, and the fork is not ready. A lease that is not a fork has no `keys` stage.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { snapshotIdentity, VmhubError, type MachineRef, type Provider, type SnapshotResult } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { lease, providerFor, stageRecorder, startSim, template } from './helpers/setup.ts';

const tpl = template({ resources: { memory_mb: 2048 } }, { channel: 'agent', agent_user: 'root' });
const signal = (): AbortSignal => AbortSignal.timeout(30_000);
const USER = 'vmhub';
const SSH = `/home/${USER}/.ssh`;
const AK = `${SSH}/authorized_keys`;

describe('proxmox: a fork authorizes only its own lease key (simulator, schema-validated)', () => {
  let sim: PveSimulator;
  let provider: Provider;
  let machineA: MachineRef;
  let vmA: number;
  let snap: SnapshotResult;
  let sourceKey: string;

  /** The lease key create gave a VM (its cloud-init `sshkeys`, URL-decoded). */
  const leaseKey = (vmid: number): string => decodeURIComponent(String(sim.state.vm(vmid)!.config.sshkeys)).trim();
  const ready = async (m: MachineRef, rec = stageRecorder()): Promise<void> => provider.ready(m, { signal: signal(), template: tpl, stage: rec.stage });

  before(async () => {
    sim = await startSim({ mode: '9', timing: { snapshotMs: 30, rollbackMs: 30, delSnapshotMs: 20 }, storages: [{ id: 'local-lvm', type: 'lvmthin' }] });
    provider = providerFor(sim, 'fky');
    machineA = await provider.create({ ...lease('fky'), template: tpl, signal: signal() });
    vmA = Number(machineA.external_id);
    await ready(machineA);
    // What cloud-init left on the source's disk: its lease key for the user (in both files sshd reads).
    sourceKey = leaseKey(vmA);
    sim.state.addGuestDir(vmA, SSH, USER);
    sim.state.writeGuestFile(vmA, AK, `${sourceKey}\n`, USER);
    sim.state.writeGuestFile(vmA, `${SSH}/authorized_keys2`, `${sourceKey}\n`, USER);
    snap = await provider.snapshot!(machineA, { identity: snapshotIdentity('fky', randomUUID()), template: tpl, signal: signal() });
  });
  after(async () => {
    await provider?.close?.();
    await sim?.close();
  });

  it('a lease that is not a fork has no keys stage', async () => {
    const rec = stageRecorder();
    const m = await provider.create({ ...lease('fky'), template: tpl, signal: signal() });
    assert.equal(m.details?.forked_from, undefined);
    await ready(m, rec);
    assert.deepEqual([...rec.stages.keys()], ['clone', 'start', 'agent', 'address', 'channel']);
  });

  it('fork: marked in its MachineRef; the keys stage leaves only its own key, owned by the user, 0600 in a 0700 .ssh', async () => {
    const b = lease('fky');
    const machineB = await provider.create({ ...b, template: tpl, signal: signal(), from_snapshot: snap });
    assert.equal(machineB.details?.forked_from, snap.identity);
    assert.deepEqual(JSON.parse(JSON.stringify(machineB)), machineB, 'JSON-safe');
    assert.doesNotMatch(JSON.stringify(machineB), /PRIVATE KEY|ssh-ed25519|ssh-rsa/, 'no key material');
    const vmB = Number(machineB.external_id);
    const forkKey = leaseKey(vmB);
    assert.notEqual(forkKey, sourceKey);
    assert.equal(sim.state.readGuestFile(vmB, AK)!.toString(), `${sourceKey}\n`, 'the problem: the cloned disk authorizes the source key');

    const rec = stageRecorder();
    await ready(machineB, rec);
    assert.deepEqual([...rec.stages.keys()], ['clone', 'start', 'agent', 'keys', 'address', 'channel'], 'keys before any channel');
    assert.equal(rec.stages.get('keys')!.status, 'done');
    assert.match(rec.stages.get('keys')!.detail!, /authorized_keys holds only the lease's key/);

    assert.equal(sim.state.readGuestFile(vmB, AK)!.toString(), `${forkKey}\n`, 'exactly the fork key');
    assert.ok(!sim.state.readGuestFile(vmB, AK)!.toString().includes(sourceKey), 'not the source key');
    assert.equal(sim.state.readGuestFile(vmB, `${SSH}/authorized_keys2`), undefined, 'authorized_keys2 gone');
    assert.equal(sim.state.guestFileOwner(vmB, AK), USER);
    assert.equal(sim.state.guestFileMode(vmB, AK), 0o600);
    assert.equal(sim.state.guestFileOwner(vmB, SSH), USER);
    assert.equal(sim.state.guestFileMode(vmB, SSH), 0o700);
    // The source is untouched.
    assert.equal(sim.state.readGuestFile(vmA, AK)!.toString(), `${sourceKey}\n`);

    // Created again (idempotent by identity), the fork is still marked.
    const again = await provider.create({ ...b, template: tpl, signal: signal(), from_snapshot: snap });
    assert.equal(again.external_id, machineB.external_id);
    assert.equal(again.details?.forked_from, snap.identity);
  });

  it('a MachineRef without the mark: the fork is known by its description, keys still replaced', async () => {
    const machineC = await provider.create({ ...lease('fky'), template: tpl, signal: signal(), from_snapshot: snap });
    const vmC = Number(machineC.external_id);
    const { forked_from: _mark, ...details } = machineC.details!;
    const rec = stageRecorder();
    await ready({ ...machineC, details }, rec);
    assert.equal(rec.stages.get('keys')?.status, 'done');
    assert.equal(sim.state.readGuestFile(vmC, AK)!.toString(), `${leaseKey(vmC)}\n`);
  });

  it('the guest refuses the write: PROVISION_FAILED naming the VM, no channel stage, not ready', async () => {
    const machineD = await provider.create({ ...lease('fky'), template: tpl, signal: signal(), from_snapshot: snap });
    const vmD = Number(machineD.external_id);
    // `.ssh` made root's: the user can neither chmod it nor write in it.
    sim.state.addGuestDir(vmD, SSH, 'root');
    const rec = stageRecorder();
    await assert.rejects(ready(machineD, rec), (err: unknown) => {
      assert.ok(VmhubError.is(err), String(err));
      assert.equal(err.code, 'PROVISION_FAILED', err.message);
      assert.match(err.message, new RegExp(`VM ${vmD} \\(a fork of snapshot ${snap.identity}\\)`));
      assert.match(err.message, /Operation not permitted/);
      return true;
    });
    assert.equal(rec.stages.get('keys')?.status, 'failed');
    assert.ok(!rec.stages.has('address') && !rec.stages.has('channel'), 'never reached a channel');
    assert.equal(sim.state.readGuestFile(vmD, AK)!.toString(), `${sourceKey}\n`);
  });

  it('the agent write itself fails (file put refused): PROVISION_FAILED, not ready', async () => {
    const machineE = await provider.create({ ...lease('fky'), template: tpl, signal: signal(), from_snapshot: snap });
    const vmE = Number(machineE.external_id);
    // authorized_keys made root's: the simulator's guest refuses the user's rename over it.
    sim.state.writeGuestFile(vmE, AK, `${sourceKey}\n`, 'root');
    const rec = stageRecorder();
    await assert.rejects(ready(machineE, rec), (err: unknown) => VmhubError.is(err) && err.code === 'PROVISION_FAILED' && err.message.includes(`VM ${vmE}`) && /permission denied/i.test(err.message));
    assert.equal(rec.stages.get('keys')?.status, 'failed');
    assert.ok(!rec.stages.has('channel'));
  });

  it('no schema violation, no unimplemented endpoint', () => {
    assert.deepEqual(sim.violations, []);
    assert.deepEqual(sim.state.requests.unimplemented, {});
  });
});
