/**
 * Privilege and role names per PVE major version. PVE 9.0 replaced `VM.Monitor` with the
 * `VM.GuestAgent.*` privileges (libpve-access-control 9.0.2); the schema's permission checks
 * already name the right ones per mode, the roles here follow.
 */
import type { PveMode } from './schema-tree.ts';

const COMMON = [
  'Datastore.Allocate', 'Datastore.AllocateSpace', 'Datastore.AllocateTemplate', 'Datastore.Audit',
  'Group.Allocate', 'Mapping.Audit', 'Mapping.Modify', 'Mapping.Use', 'Permissions.Modify',
  'Pool.Allocate', 'Pool.Audit', 'Realm.Allocate', 'Realm.AllocateUser',
  'SDN.Allocate', 'SDN.Audit', 'SDN.Use',
  'Sys.AccessNetwork', 'Sys.Audit', 'Sys.Console', 'Sys.Incoming', 'Sys.Modify', 'Sys.PowerMgmt', 'Sys.Syslog',
  'User.Modify',
  'VM.Allocate', 'VM.Audit', 'VM.Backup', 'VM.Clone', 'VM.Config.CDROM', 'VM.Config.CPU', 'VM.Config.Cloudinit',
  'VM.Config.Disk', 'VM.Config.HWType', 'VM.Config.Memory', 'VM.Config.Network', 'VM.Config.Options',
  'VM.Console', 'VM.Migrate', 'VM.PowerMgmt', 'VM.Snapshot', 'VM.Snapshot.Rollback',
];
const AGENT9 = ['VM.GuestAgent.Audit', 'VM.GuestAgent.FileRead', 'VM.GuestAgent.FileWrite', 'VM.GuestAgent.FileSystemMgmt', 'VM.GuestAgent.Unrestricted', 'VM.Replicate'];

export function allPrivileges(mode: PveMode): string[] {
  return mode === '9' ? [...COMMON, ...AGENT9] : [...COMMON, 'VM.Monitor'];
}

export function roles(mode: PveMode): Record<string, string[]> {
  const all = allPrivileges(mode);
  const vm = all.filter((p) => p.startsWith('VM.'));
  const vmUser = ['VM.Console', 'VM.PowerMgmt', 'VM.Config.CDROM', 'VM.Config.Cloudinit', 'VM.Backup', 'VM.Audit'];
  if (mode === '9') vmUser.push('VM.GuestAgent.FileRead', 'VM.GuestAgent.FileWrite', 'VM.GuestAgent.FileSystemMgmt', 'VM.GuestAgent.Audit');
  return {
    Administrator: all,
    NoAccess: [],
    PVEAuditor: all.filter((p) => p.endsWith('.Audit')),
    PVEVMAdmin: vm,
    PVEVMUser: vmUser,
    PVEDatastoreUser: ['Datastore.AllocateSpace', 'Datastore.Audit'],
    PVEDatastoreAdmin: ['Datastore.Allocate', 'Datastore.AllocateSpace', 'Datastore.AllocateTemplate', 'Datastore.Audit'],
    PVESDNUser: ['SDN.Audit', 'SDN.Use'],
    PVEPoolUser: ['Pool.Audit'],
    PVEPoolAdmin: ['Pool.Allocate', 'Pool.Audit'],
  };
}
