/**
 * POST /nodes/{node}/qemu/{vmid}/clone, following qemu-server's clone_vm: early checks answer
 * HTTP errors; the new VM exists at once with `lock: clone`; the qmclone task (id = source VMID)
 * ends by unlocking it, or removes it again on failure (`clone failed: ...`). With `snapname` the
 * clone is of the snapshot (its config and its guest files; never its RAM): a full clone, since a
 * linked clone needs a template, and not from ZFS (`Full clone feature is not supported ...`).
 */
import { randomUUID } from 'node:crypto';
import type { HandlerContext } from '../handler.ts';
import { bool } from '../handler.ts';
import { fail, permError } from '../pve-error.ts';
import { requirePrivs } from '../auth.ts';
import { randomMac } from '../cluster.ts';
import type { ConfigValue } from '../model.ts';
import { canCopyFromSnapshot, DISK_KEY, loadDisk, snapshotForClone } from './qemu-snapshot.ts';
const RUNTIME_KEYS = new Set(['template', 'lock', 'parent', 'snapstate', 'vmstate', 'runningmachine', 'runningcpu']);

export function cloneVm({ cluster, caller, params }: HandlerContext): string {
  const node: string = params.node;
  const vmid: number = params.vmid;
  const newid: number = params.newid;
  const src = cluster.vmOn(node, vmid);
  const pool: string | undefined = params.pool;
  if (pool !== undefined && !cluster.pools.has(pool)) throw permError(`pool '${pool}' does not exist`);
  const target: string = params.target ?? node;
  if (!cluster.nodes.has(target)) throw fail(`no such cluster node '${target}'`);
  cluster.assertUnlocked(src);
  const snap = params.snapname === undefined ? undefined : snapshotForClone(src, params.snapname);
  const srcConfig = snap?.config ?? src.config;
  const isTemplate = bool(src.config.template);
  const full = params.full === undefined ? !isTemplate : bool(params.full);
  if (!full && (params.storage !== undefined || params.format !== undefined))
    throw fail(`parameter '${params.storage !== undefined ? 'storage' : 'format'}' not allowed for linked clones`);

  const disks = Object.entries(srcConfig).filter(([k, v]) => DISK_KEY.test(k) && !String(v).includes('media=cdrom'));
  const storageOf = (v: ConfigValue): string => String(v).split(':')[0] ?? '';
  const targetStorage: string | undefined = params.storage;
  if (targetStorage !== undefined) {
    const st = cluster.storages.get(targetStorage);
    if (!st) throw fail(`storage '${targetStorage}' does not exist`);
    if (!st.content.includes('images')) throw fail(`storage '${targetStorage}' does not support vm images`);
  }
  if (target !== node) {
    for (const [, v] of disks) {
      const st = cluster.storages.get(storageOf(v));
      if (!st?.shared) throw fail(`can't clone VM to node '${target}' (VM uses local storage)`);
    }
    if (targetStorage && !cluster.storages.get(targetStorage)?.shared) throw fail(`can't clone to non-shared storage '${targetStorage}'`);
  }
  if (snap && full) {
    for (const [k, v] of disks) if (!canCopyFromSnapshot(cluster, String(v).split(',')[0] ?? '')) throw fail(`Full clone feature is not supported for drive '${k}'`);
  }
  if (!full) {
    for (const [k, v] of disks) {
      const st = cluster.storages.get(storageOf(v));
      if (!isTemplate || !st?.linkedClone) throw fail(`Linked clone feature is not supported for '${String(v).split(',')[0]}' (${k})`);
    }
  }
  // handler-level checks PVE does after the schema's check
  const storagesUsed = new Set(targetStorage ? [targetStorage] : disks.map(([, v]) => storageOf(v)));
  for (const s of storagesUsed) requirePrivs(cluster, caller, `/storage/${s}`, ['Datastore.AllocateSpace']);
  for (const [k, v] of Object.entries(srcConfig)) {
    if (!/^net\d+$/.test(k)) continue;
    const bridge = /bridge=([^,]+)/.exec(String(v))?.[1];
    const vlan = /tag=(\d+)/.exec(String(v))?.[1];
    if (bridge) requirePrivs(cluster, caller, `/sdn/zones/localnetwork/${bridge}${vlan ? `/${vlan}` : ''}`, ['SDN.Use']);
  }
  if (cluster.vms.has(newid)) throw fail(`unable to create VM ${newid}: config file already exists`);

  const config: Record<string, ConfigValue> = {};
  for (const [k, v] of Object.entries(srcConfig)) {
    if (RUNTIME_KEYS.has(k) || /^unused\d+$/.test(k)) continue;
    if (/^net\d+$/.test(k)) config[k] = String(v).replace(/^(\w+)=([0-9A-Fa-f:]{17})/, (_, model: string) => `${model}=${randomMac()}`);
    else if (k === 'smbios1') config[k] = `uuid=${randomUUID()}`;
    else if (k === 'vmgenid') config[k] = randomUUID();
    else if (DISK_KEY.test(k) && !String(v).includes('media=cdrom')) {
      const [volid, ...opts] = String(v).split(',');
      const sid = targetStorage ?? storageOf(v);
      const diskNo = /disk-(\d+)/.exec(volid ?? '')?.[1] ?? '0';
      const newVol = full ? `${sid}:vm-${newid}-disk-${diskNo}` : `${volid}/vm-${newid}-disk-${diskNo}`;
      config[k] = [newVol, ...opts].join(',');
    } else if (String(v).includes('cloudinit')) config[k] = `${storageOf(v)}:vm-${newid}-cloudinit,media=cdrom`;
    else config[k] = v;
  }
  config.name = params.name ?? `Copy-of-VM-${src.config.name ?? vmid}`;
  if (params.description !== undefined) config.description = params.description;
  config.lock = 'clone';
  const vm = cluster.createVm(newid, node, config);
  if (snap) loadDisk(vm, snap);
  const volumes = Object.entries(config)
    .filter(([k]) => DISK_KEY.test(k))
    .map(([, v]) => String(v).split(',')[0] ?? '');
  for (const v of volumes) cluster.volumes.add(v);

  const limit = cluster.opts.parallelClonesPerStorage;
  const busyStorage = limit === undefined ? undefined : [...storagesUsed].find((sid) => clonesOnto(cluster, sid, vm) >= limit);
  const task = cluster.startTask({
    node,
    type: 'qmclone',
    id: String(vmid),
    user: caller.tokenId,
    durationMs: full ? cluster.timing.fullCloneMs : cluster.timing.cloneMs,
    log: disks.map(([k, v]) => `create ${full ? 'full' : 'linked'} clone of drive ${k} (${String(v).split(',')[0]})`),
    precheck: () => {
      if (busyStorage) throw new Error(`clone failed: can't lock file '/var/lock/pve-manager/pve-storage-${busyStorage}' - got timeout`);
    },
    finish: () => {
      if (cluster.vms.get(newid) !== vm) throw new Error(`clone failed: VM ${newid} vanished`);
      delete vm.config.lock;
      if (target !== node) vm.node = target;
      if (pool !== undefined) vm.pool = pool;
    },
    onFail: () => {
      if (cluster.vms.get(newid) === vm) cluster.vms.delete(newid);
      for (const v of volumes) cluster.volumes.delete(v);
    },
  });
  const origFinish = task.finish;
  task.finish = () => {
    try {
      origFinish?.();
    } catch (e) {
      const msg = (e as Error).message;
      throw new Error(msg.startsWith('clone failed:') ? msg : `clone failed: ${msg}`);
    }
  };
  return task.upid;
}

/** Other clones still running (locked `clone`) with a disk on `sid`. */
function clonesOnto(cluster: HandlerContext['cluster'], sid: string, self: { vmid: number }): number {
  let n = 0;
  for (const vm of cluster.vms.values()) {
    if (vm.vmid === self.vmid || vm.config.lock !== 'clone') continue;
    if (Object.entries(vm.config).some(([k, v]) => DISK_KEY.test(k) && String(v).startsWith(`${sid}:`))) n++;
  }
  return n;
}
