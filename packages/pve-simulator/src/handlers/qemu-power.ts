/**
 * Power and destroy endpoints. Start/stop/shutdown/reboot/reset return a UPID at once; most
 * failures (already running, template, locked) surface only as the task's exit status, as in
 * qemu-server. Destroy refuses running or protected VMs up front and checks the lock in the task.
 */
import type { HandlerContext } from '../handler.ts';
import { bool, lockCheck, vmTask } from '../handler.ts';
import { fail } from '../pve-error.ts';
import { tagSet } from '../tags.ts';

export function startVm(ctx: HandlerContext): string {
  const { cluster, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  return vmTask(ctx, vm, {
    type: 'qmstart',
    durationMs: cluster.timing.startMs,
    precheck: () => {
      if (bool(vm.config.template)) throw new Error("you can't start a vm if it's a template");
      lockCheck(ctx, vm);
      if (vm.status === 'running') throw new Error(`VM ${vm.vmid} already running`);
    },
    finish: () => {
      if (!cluster.vms.has(vm.vmid)) throw new Error(`Configuration file 'nodes/${vm.node}/qemu-server/${vm.vmid}.conf' does not exist`);
      cluster.markStarted(vm);
    },
  }).upid;
}

export function stopVm(ctx: HandlerContext): string {
  const { cluster, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  return vmTask(ctx, vm, {
    type: 'qmstop',
    durationMs: cluster.timing.stopMs,
    precheck: () => lockCheck(ctx, vm),
    finish: () => cluster.markStopped(vm),
  }).upid;
}

export function shutdownVm(ctx: HandlerContext): string {
  const { cluster, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  if (vm.paused && !bool(params.forceStop)) throw fail('VM is paused - cannot shutdown');
  return vmTask(ctx, vm, {
    type: 'qmshutdown',
    durationMs: cluster.timing.shutdownMs,
    precheck: () => lockCheck(ctx, vm),
    finish: () => cluster.markStopped(vm),
  }).upid;
}

export function rebootVm(type: 'qmreboot' | 'qmreset') {
  return (ctx: HandlerContext): string => {
    const { cluster, params } = ctx;
    const vm = cluster.vmOn(params.node, params.vmid);
    if (vm.status !== 'running') throw fail(`VM ${vm.vmid} not running`);
    if (type === 'qmreboot' && vm.paused) throw fail('VM is paused - cannot shutdown');
    return vmTask(ctx, vm, {
      type,
      durationMs: type === 'qmreboot' ? cluster.timing.shutdownMs : cluster.timing.stopMs,
      precheck: () => {
        cluster.assertUnlocked(vm);
      },
      // reboot: shut down and started again (pending changes applied, a new process); reset: the
      // guest restarts inside the same process (cluster.markReset).
      finish: () => (type === 'qmreboot' ? cluster.markStarted(vm) : cluster.markReset(vm)),
    }).upid;
  };
}

export function destroyVm(ctx: HandlerContext): string {
  const { cluster, caller, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  if (bool(params.skiplock) && caller.user !== 'root@pam') throw fail('Only root may use this option.');
  if (bool(vm.config.protection)) throw fail(`can't remove VM ${vm.vmid} - protection mode enabled`);
  if (vm.status === 'running') throw fail(`VM ${vm.vmid} is running - destroy failed`);
  return vmTask(ctx, vm, {
    type: 'qmdestroy',
    durationMs: cluster.timing.destroyMs,
    precheck: () => {
      lockCheck(ctx, vm);
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
      // snapshots go with the VM, their RAM state volumes too
      const states = [...vm.snapshots.values()].map((s) => String(s.config.vmstate ?? ''));
      const referenced = [...Object.values(vm.config).map((v) => String(v).split(',')[0] ?? ''), ...states];
      // qemu-server frees only volumes this VM owns: another VM's disk attached here stays.
      for (const v of referenced) {
        const name = v.slice(v.indexOf(':') + 1).split('/').pop() ?? ''; // a linked clone's: base-<t>-disk-<n>/vm-<vmid>-disk-<n>
        if (!/^(vm|base)-\d+-/.test(name) || name.startsWith(`vm-${vm.vmid}-`) || name.startsWith(`base-${vm.vmid}-`)) cluster.volumes.delete(v);
      }
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

export function templateVm(ctx: HandlerContext): string {
  const { cluster, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  cluster.assertUnlocked(vm);
  if (bool(vm.config.template)) throw fail("you can't convert a template to a template");
  if (vm.status === 'running') throw fail("you can't convert a VM to template if VM is running");
  if (vm.snapshots.size > 0) throw fail('unable to create template, because VM contains snapshots');
  return vmTask(ctx, vm, {
    type: 'qmtemplate',
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
