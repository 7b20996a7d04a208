/**
 * Power and destroy endpoints. Start/stop/shutdown/reboot/reset return a UPID at once; most
 * failures (already running, template, locked) surface only as the task's exit status, as in
 * qemu-server. Destroy refuses running or protected VMs up front and checks the lock in the task.
 */
import type { HandlerContext } from '../handler.ts';
import { bool } from '../handler.ts';
import { fail } from '../pve-error.ts';
import { tagSet } from '../tags.ts';

export function startVm({ cluster, caller, params }: HandlerContext): string {
  const vm = cluster.vmOn(params.node, params.vmid);
  return cluster.startTask({
    node: vm.node,
    type: 'qmstart',
    id: String(vm.vmid),
    user: caller.tokenId,
    durationMs: cluster.timing.startMs,
    precheck: () => {
      if (bool(vm.config.template)) throw new Error("you can't start a vm if it's a template");
      if (!bool(params.skiplock)) cluster.assertUnlocked(vm);
      if (vm.status === 'running') throw new Error(`VM ${vm.vmid} already running`);
    },
    finish: () => {
      if (!cluster.vms.has(vm.vmid)) throw new Error(`Configuration file 'nodes/${vm.node}/qemu-server/${vm.vmid}.conf' does not exist`);
      cluster.markStarted(vm);
    },
  }).upid;
}

export function stopVm({ cluster, caller, params }: HandlerContext): string {
  const vm = cluster.vmOn(params.node, params.vmid);
  return cluster.startTask({
    node: vm.node,
    type: 'qmstop',
    id: String(vm.vmid),
    user: caller.tokenId,
    durationMs: cluster.timing.stopMs,
    precheck: () => {
      if (!bool(params.skiplock)) cluster.assertUnlocked(vm);
    },
    finish: () => cluster.markStopped(vm),
  }).upid;
}

export function shutdownVm({ cluster, caller, params }: HandlerContext): string {
  const vm = cluster.vmOn(params.node, params.vmid);
  if (vm.paused && !bool(params.forceStop)) throw fail('VM is paused - cannot shutdown');
  return cluster.startTask({
    node: vm.node,
    type: 'qmshutdown',
    id: String(vm.vmid),
    user: caller.tokenId,
    durationMs: cluster.timing.shutdownMs,
    precheck: () => {
      if (!bool(params.skiplock)) cluster.assertUnlocked(vm);
    },
    finish: () => cluster.markStopped(vm),
  }).upid;
}

export function rebootVm(type: 'qmreboot' | 'qmreset') {
  return ({ cluster, caller, params }: HandlerContext): string => {
    const vm = cluster.vmOn(params.node, params.vmid);
    if (vm.status !== 'running') throw fail(`VM ${vm.vmid} not running`);
    if (type === 'qmreboot' && vm.paused) throw fail('VM is paused - cannot shutdown');
    return cluster.startTask({
      node: vm.node,
      type,
      id: String(vm.vmid),
      user: caller.tokenId,
      durationMs: type === 'qmreboot' ? cluster.timing.shutdownMs : cluster.timing.stopMs,
      precheck: () => {
        cluster.assertUnlocked(vm);
      },
      finish: () => cluster.markStarted(vm),
    }).upid;
  };
}

export function destroyVm({ cluster, caller, params }: HandlerContext): string {
  const vm = cluster.vmOn(params.node, params.vmid);
  if (bool(params.skiplock) && caller.user !== 'root@pam') throw fail('Only root may use this option.');
  if (bool(vm.config.protection)) throw fail(`can't remove VM ${vm.vmid} - protection mode enabled`);
  if (vm.status === 'running') throw fail(`VM ${vm.vmid} is running - destroy failed`);
  return cluster.startTask({
    node: vm.node,
    type: 'qmdestroy',
    id: String(vm.vmid),
    user: caller.tokenId,
    durationMs: cluster.timing.destroyMs,
    precheck: () => {
      if (!bool(params.skiplock)) cluster.assertUnlocked(vm);
      if (bool(vm.config.template)) {
        for (const [k, v] of Object.entries(vm.config)) {
          const base = /^[^,]*base-\d+-disk-\d+/.exec(String(v))?.[0];
          if (!base || !/^(scsi|virtio|sata|ide)\d+$/.test(k)) continue;
          const user = [...cluster.vms.values()].find((o) => o !== vm && Object.values(o.config).some((x) => String(x).startsWith(`${base}/`)));
          if (user) throw new Error(`base volume '${base}' is still in use by linked cloned`);
        }
      }
    },
    finish: () => {
      const referenced = Object.values(vm.config).map((v) => String(v).split(',')[0] ?? '');
      for (const v of referenced) cluster.volumes.delete(v);
      if (bool(params['destroy-unreferenced-disks'])) {
        for (const v of [...cluster.volumes]) if (new RegExp(`:(vm|base)-${vm.vmid}-`).test(v)) cluster.volumes.delete(v);
      }
      cluster.vms.delete(vm.vmid);
      cluster.destroyed.push({
        vmid: vm.vmid,
        node: vm.node,
        tags: tagSet(vm.config.tags as string | undefined),
        purge: bool(params.purge),
        destroyUnreferencedDisks: bool(params['destroy-unreferenced-disks']),
        at: cluster.now(),
      });
    },
  }).upid;
}

export function templateVm({ cluster, caller, params }: HandlerContext): string {
  const vm = cluster.vmOn(params.node, params.vmid);
  cluster.assertUnlocked(vm);
  if (bool(vm.config.template)) throw fail("you can't convert a template to a template");
  if (vm.status === 'running') throw fail("you can't convert a VM to template if VM is running");
  return cluster.startTask({
    node: vm.node,
    type: 'qmtemplate',
    id: String(vm.vmid),
    user: caller.tokenId,
    durationMs: cluster.timing.templateMs,
    finish: () => {
      for (const [k, v] of Object.entries(vm.config)) {
        if (/^(scsi|virtio|sata)\d+$/.test(k)) {
          const renamed = String(v).replace(`vm-${vm.vmid}-disk`, `base-${vm.vmid}-disk`);
          cluster.volumes.delete(String(v).split(',')[0] ?? '');
          cluster.volumes.add(renamed.split(',')[0] ?? '');
          vm.config[k] = renamed;
        }
      }
      vm.config.template = 1;
    },
  }).upid;
}
