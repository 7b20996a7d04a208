/**
 * Snapshots (`/nodes/{node}/qemu/{vmid}/snapshot...`), following PVE::AbstractConfig's
 * snapshot_create / snapshot_rollback / snapshot_delete: list (with the `current` pseudo entry),
 * create (`qmsnapshot`), rollback (`qmrollback`) and delete (`qmdelsnapshot`) answer a UPID at
 * once; a reserved name is an HTTP 500 before the task, every other failure (name used, template,
 * storage without snapshots, snapshot missing, VM locked) is the task's exit status. While the
 * task runs the VM carries lock `snapshot` / `rollback` / `snapshot-delete`.
 *
 * What a snapshot keeps: the config (minus `lock`), the guest's disk (its files, owners, modes and
 * directories) and, with `vmstate` on a running VM, its RAM: a `vmstate` config key naming the
 * state volume `<storage>:vm-<vmid>-state-<snapname>`. Rolling back to a RAM snapshot resumes the
 * VM running where it was (no boot: the agent answers at once, `onBoot` is not called, the
 * cloud-init values it saw stay those of the snapshot); to a disk-only snapshot leaves it stopped
 * unless `start=1` (then it boots).
 */
import type { HandlerContext } from '../handler.ts';
import { bool, vmTask } from '../handler.ts';
import { fail } from '../pve-error.ts';
import type { Cluster } from '../cluster.ts';
import type { ConfigValue, SimSnapshot, SimVm } from '../model.ts';

const RESERVED = new Set(['current', 'pending']);
export const DISK_KEY = /^(scsi|virtio|sata|ide|efidisk|tpmstate)\d+$/;
/** Storage types whose volumes snapshot whatever their format; others only qcow2 files. */
const SNAPSHOT_TYPES = new Set(['lvmthin', 'zfspool', 'rbd', 'btrfs']);
const STATE_KEYS = ['vmstate', 'runningmachine', 'runningcpu'];

/** The VM's disks (cloud-init and CD-ROM drives excluded), `[key, volid]`. */
export function vmDisks(config: Record<string, ConfigValue>): [string, string][] {
  return Object.entries(config)
    .filter(([k, v]) => DISK_KEY.test(k) && !String(v).includes('media=cdrom'))
    .map(([k, v]) => [k, String(v).split(',')[0] ?? '']);
}

function storageType(cluster: Cluster, volid: string): string | undefined {
  return cluster.storages.get(volid.split(':')[0] ?? '')?.type;
}

function canSnapshot(cluster: Cluster, volid: string): boolean {
  const type = storageType(cluster, volid);
  return (type !== undefined && SNAPSHOT_TYPES.has(type)) || volid.endsWith('.qcow2');
}

/** Can a full clone copy this volume as it was in a snapshot? (ZFS cannot: only current and base.) */
export function canCopyFromSnapshot(cluster: Cluster, volid: string): boolean {
  return storageType(cluster, volid) !== 'zfspool';
}

function copyDisk(from: { files: Map<string, Buffer>; owners: Map<string, string>; dirs: Set<string>; modes: Map<string, number> }): SimSnapshot['disk'] {
  return {
    files: new Map([...from.files].map(([k, v]) => [k, Buffer.from(v)])),
    owners: new Map(from.owners),
    dirs: new Set(from.dirs),
    modes: new Map(from.modes),
  };
}

/** Put a snapshot's disk into a VM's guest (rollback, clone from a snapshot). */
export function loadDisk(vm: SimVm, snap: SimSnapshot): void {
  const d = copyDisk(snap.disk);
  vm.guest.files = d.files;
  vm.guest.owners = d.owners;
  vm.guest.dirs = d.dirs;
  vm.guest.modes = d.modes;
}

function snapshotOf(vm: SimVm, name: string): SimSnapshot {
  const snap = vm.snapshots.get(name);
  if (!snap) throw new Error(`snapshot '${name}' does not exist`);
  return snap;
}

/** A snapshot of `vm` for a clone's early checks (HTTP 500 when missing). */
export function snapshotForClone(vm: SimVm, name: string): SimSnapshot {
  const snap = vm.snapshots.get(name);
  if (!snap) throw fail(`snapshot '${name}' does not exist`);
  return snap;
}

/** Lift a lock this task set, if nobody replaced it meanwhile. */
const unlock = (vm: SimVm, lock: string) => (): void => {
  if (vm.config.lock === lock) delete vm.config.lock;
};

export function listSnapshots({ cluster, params }: HandlerContext): unknown[] {
  const vm = cluster.vmOn(params.node, params.vmid);
  const out: unknown[] = [...vm.snapshots.values()].map((s) => ({
    name: s.name,
    description: s.description,
    snaptime: s.snaptime,
    ...(s.parent !== undefined ? { parent: s.parent } : {}),
    ...(s.vmstate ? { vmstate: 1 } : {}),
  }));
  out.push({ name: 'current', description: 'You are here!', ...(vm.snapParent !== undefined ? { parent: vm.snapParent } : {}) });
  return out;
}

export function createSnapshot(ctx: HandlerContext): string {
  const { cluster, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  const name: string = params.snapname;
  if (RESERVED.has(name)) throw fail(`unable to use snapshot name '${name}' (reserved name)`);
  const withState = bool(params.vmstate) && vm.status === 'running';
  const stateStorage = String(vm.config.vmstatestorage ?? vmDisks(vm.config)[0]?.[1].split(':')[0] ?? cluster.imageStorage());
  return vmTask(ctx, vm, {
    type: 'qmsnapshot',
    durationMs: cluster.timing.snapshotMs,
    log: withState ? [`saving VM state and RAM using storage '${stateStorage}'`] : [],
    precheck: () => {
      cluster.assertUnlocked(vm);
      if (bool(vm.config.template)) throw new Error("you can't take a snapshot if it's a template");
      if (vm.snapshots.has(name)) throw new Error(`snapshot name '${name}' already used`);
      if (vmDisks(vm.config).some(([, volid]) => !canSnapshot(cluster, volid))) throw new Error('snapshot feature is not available');
      vm.config.lock = 'snapshot';
    },
    finish: () => {
      if (cluster.vms.get(vm.vmid) !== vm) throw new Error(`Configuration file 'nodes/${vm.node}/qemu-server/${vm.vmid}.conf' does not exist`);
      const { lock: _lock, ...config } = vm.config;
      const running = withState && vm.status === 'running';
      if (running) {
        const volid = `${stateStorage}:vm-${vm.vmid}-state-${name}`;
        cluster.volumes.add(volid);
        config.vmstate = volid;
        config.runningmachine = 'pc-i440fx-9.2+pve1';
      }
      vm.snapshots.set(name, {
        name,
        description: params.description ?? '',
        snaptime: Math.floor(cluster.now() / 1000),
        parent: vm.snapParent,
        vmstate: running,
        config,
        disk: copyDisk(vm.guest),
        cloudInitAtStart: running && vm.cloudInitAtStart ? { ...vm.cloudInitAtStart } : undefined,
      });
      vm.snapParent = name;
      delete vm.config.lock;
    },
    onFail: unlock(vm, 'snapshot'),
  }).upid;
}

/** A task on an existing snapshot (rollback, delete): checked and locked when the worker starts. */
function onSnapshot(ctx: HandlerContext, spec: { type: string; lock: string; durationMs: number; finish: (vm: SimVm, snap: SimSnapshot) => void }): string {
  const { cluster, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  const name: string = params.snapname;
  return vmTask(ctx, vm, {
    type: spec.type,
    durationMs: spec.durationMs,
    precheck: () => {
      cluster.assertUnlocked(vm);
      snapshotOf(vm, name);
      vm.config.lock = spec.lock;
    },
    finish: () => spec.finish(vm, snapshotOf(vm, name)),
    onFail: unlock(vm, spec.lock),
  }).upid;
}

export function rollbackSnapshot(ctx: HandlerContext): string {
  const { cluster, params } = ctx;
  return onSnapshot(ctx, {
    type: 'qmrollback',
    lock: 'rollback',
    durationMs: cluster.timing.rollbackMs,
    finish: (vm, snap) => {
      if (vm.status === 'running') cluster.markStopped(vm);
      const config = { ...snap.config };
      for (const k of STATE_KEYS) delete config[k];
      vm.config = config;
      vm.pending = {};
      vm.snapParent = snap.name;
      loadDisk(vm, snap);
      if (snap.vmstate) resumeFromState(cluster, vm, snap);
      else if (bool(params.start)) cluster.markStarted(vm);
    },
  });
}

/** The VM runs again from the saved RAM: no boot, the agent already running, cloud-init as it was. */
function resumeFromState(cluster: Cluster, vm: SimVm, snap: SimSnapshot): void {
  vm.status = 'running';
  vm.paused = false;
  vm.startedAt = cluster.now();
  vm.pid = 10000 + Math.floor(cluster.rng() * 50000);
  vm.guest.agentReadyAt = cluster.now();
  vm.guest.booting = false;
  vm.guest.execs.clear();
  vm.cloudInitAtStart = snap.cloudInitAtStart ? { ...snap.cloudInitAtStart } : vm.cloudInitAtStart;
}

export function deleteSnapshot(ctx: HandlerContext): string {
  const { cluster } = ctx;
  return onSnapshot(ctx, {
    type: 'qmdelsnapshot',
    lock: 'snapshot-delete',
    durationMs: cluster.timing.delSnapshotMs,
    finish: (vm, snap) => {
      if (snap.config.vmstate !== undefined) cluster.volumes.delete(String(snap.config.vmstate));
      for (const other of vm.snapshots.values()) if (other.parent === snap.name) other.parent = snap.parent;
      if (vm.snapParent === snap.name) vm.snapParent = snap.parent;
      vm.snapshots.delete(snap.name);
      delete vm.config.lock;
    },
  });
}
