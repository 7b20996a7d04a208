import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bridgePaths, diskStorages, hasPrivilege, missing, requirements } from './privileges.ts';

const ALL9 = { 'VM.Clone': 1, 'VM.Allocate': 1, 'VM.Audit': 1, 'VM.Config.Options': 1, 'VM.Config.Cloudinit': 1, 'VM.PowerMgmt': 1, 'VM.GuestAgent.Audit': 1 };

describe('proxmox: privileges', () => {
  it('propagated ACLs on ancestors count, non-propagated ones do not', () => {
    assert.equal(hasPrivilege({ '/vms': { 'VM.Clone': 1 } }, '/vms/9000', 'VM.Clone'), true);
    assert.equal(hasPrivilege({ '/vms': { 'VM.Clone': 0 } }, '/vms/9000', 'VM.Clone'), false);
    assert.equal(hasPrivilege({ '/vms/9000': { 'VM.Clone': 0 } }, '/vms/9000', 'VM.Clone'), true);
    assert.equal(hasPrivilege({ '/': { 'VM.Clone': 1 } }, '/vms/9000', 'VM.Clone'), true);
  });
  it('PVE 9 needs VM.GuestAgent.*, PVE 8 needs VM.Monitor; a missing VM.Clone is named', () => {
    const perms = { '/vms': ALL9, '/storage': { 'Datastore.AllocateSpace': 1 } };
    assert.deepEqual(missing(perms, requirements({ major: 9, templateVmid: 9000, storages: [], channel: 'ssh' })), []);
    const gaps8 = missing(perms, requirements({ major: 8, templateVmid: 9000, storages: [], channel: 'ssh' }));
    assert.deepEqual(gaps8.map((g) => g.anyOf.join('|')), ['VM.Monitor']);
    const noClone = { '/vms': { ...ALL9, 'VM.Clone': 0 }, '/storage': { 'Datastore.AllocateSpace': 1 } };
    const gaps = missing(noClone, requirements({ major: 9, templateVmid: 9000, storages: ['local-lvm'], channel: 'agent' }));
    assert.deepEqual(gaps.map((g) => `${g.anyOf.join('|')}@${g.path}`), ['VM.Clone@/vms/9000', 'VM.GuestAgent.Unrestricted@/vms']);
  });
  it('asks SDN.Use on each NIC bridge (with VLAN)', () => {
    const reqs = requirements({ major: 9, templateVmid: 9000, storages: [], channel: 'ssh', bridges: bridgePaths({ net0: 'virtio=AA:BB:CC:DD:EE:FF,bridge=vmbr0', net1: 'virtio,bridge=vmbr1,tag=20' }) });
    const gaps = missing({ '/vms': ALL9, '/storage': { 'Datastore.AllocateSpace': 1 }, '/sdn/zones/localnetwork/vmbr0': { 'SDN.Use': 0 } }, reqs);
    assert.deepEqual(gaps.map((g) => g.path), ['/sdn/zones/localnetwork/vmbr1/20']);
  });
  it('reads disk storages from a template config', () => {
    assert.deepEqual(diskStorages({ scsi0: 'local-lvm:base-9000-disk-0,size=8G', ide2: 'local-lvm:vm-9000-cloudinit,media=cdrom', ide0: 'none,media=cdrom', efidisk0: 'ceph:x', net0: 'virtio=..' }), ['local-lvm', 'ceph']);
  });
});
