/** Read-only VM views: the node's VM list and status/current. */
import type { HandlerContext } from '../handler.ts';
import { bool } from '../handler.ts';
import { hasPrivs } from '../auth.ts';
import type { Cluster } from '../cluster.ts';
import { memoryMiB } from '../cluster.ts';
import type { SimVm } from '../model.ts';

export function vmSummary(cluster: Cluster, vm: SimVm): Record<string, unknown> {
  const c = vm.config;
  const uptime = vm.startedAt ? Math.floor((cluster.now() - vm.startedAt) / 1000) : 0;
  const maxmem = memoryMiB(vm) * 2 ** 20;
  return {
    vmid: vm.vmid,
    status: vm.status,
    name: c.name !== undefined ? String(c.name) : `VM ${vm.vmid}`,
    ...(c.tags !== undefined ? { tags: String(c.tags) } : {}),
    ...(c.lock !== undefined ? { lock: String(c.lock) } : {}),
    ...(bool(c.template) ? { template: 1 } : {}),
    ...(vm.pid !== undefined ? { pid: vm.pid } : {}),
    uptime,
    cpus: Number(c.cores ?? 1) * Number(c.sockets ?? 1),
    maxmem,
    mem: vm.status === 'running' ? Math.floor(maxmem / 2) : 0,
    maxdisk: 8 * 2 ** 30,
    disk: 0,
    cpu: vm.status === 'running' ? 0.01 : 0,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
  };
}

export function listVms({ cluster, caller, params }: HandlerContext): unknown[] {
  const out: unknown[] = [];
  for (const vm of cluster.vms.values()) {
    if (vm.node !== params.node) continue;
    if (!hasPrivs(cluster, caller, `/vms/${vm.vmid}`, ['VM.Audit'], false)) continue;
    const s = vmSummary(cluster, vm);
    delete s.disk;
    if (vm.status === 'running') s.qmpstatus = vm.paused ? 'paused' : 'running';
    out.push(s);
  }
  return out;
}

export function statusCurrent({ cluster, params }: HandlerContext): unknown {
  const vm = cluster.vmOn(params.node, params.vmid);
  const s = vmSummary(cluster, vm);
  delete s.disk;
  return {
    ...s,
    qmpstatus: vm.status === 'running' ? (vm.paused ? 'paused' : 'running') : 'stopped',
    ...(/^(1|enabled=1)(,|$)/.test(String(vm.config.agent ?? '')) ? { agent: 1 } : {}),
    ha: { managed: 0 },
    ...(vm.status === 'running' ? { 'running-machine': 'pc-i440fx-9.2+pve1', 'running-qemu': '9.2.0' } : {}),
  };
}

export function vmIndex({ cluster, params }: HandlerContext): unknown[] {
  cluster.vmOn(params.node, params.vmid);
  return ['config', 'pending', 'status', 'agent', 'clone', 'template', 'unlink', 'vncproxy', 'termproxy', 'migrate', 'snapshot', 'firewall', 'rrd', 'rrddata', 'monitor', 'resize', 'move', 'cloudinit', 'sendkey', 'feature'].map((subdir) => ({ subdir }));
}

export function statusIndex({ cluster, params }: HandlerContext): unknown[] {
  cluster.vmOn(params.node, params.vmid);
  return ['current', 'start', 'stop', 'reset', 'shutdown', 'suspend', 'reboot', 'resume'].map((subdir) => ({ subdir }));
}
