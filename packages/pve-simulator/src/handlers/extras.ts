/**
 * Smaller endpoints around a provider's main path: directory indexes, storage listing and status,
 * cloud-init views (current values, regenerate, rendered dump), disk resize, pools by id, and
 * suspend/resume.
 */
import { createHash } from 'node:crypto';
import type { HandlerContext } from '../handler.ts';
import { bool, lockCheck, vmTask } from '../handler.ts';
import { fail, permError } from '../pve-error.ts';
import { hasPrivs } from '../auth.ts';
import { tagSet } from '../tags.ts';

const CI_KEYS = /^(ciuser|cipassword|citype|ciupgrade|cicustom|sshkeys|nameserver|searchdomain|ipconfig\d+)$/;

export function agentIndex({ cluster, params }: HandlerContext): unknown[] {
  cluster.vmOn(params.node, params.vmid);
  return ['exec', 'exec-status', 'file-read', 'file-write', 'get-host-name', 'get-osinfo', 'info', 'network-get-interfaces', 'ping'].map((name) => ({ name }));
}

export function taskIndex(): unknown[] {
  return [{ name: 'log' }, { name: 'status' }];
}

export function storageList({ cluster, caller, params }: HandlerContext): unknown[] {
  return [...cluster.storages.values()]
    .filter((s) => (params.type === undefined || s.type === params.type) && hasPrivs(cluster, caller, `/storage/${s.id}`, ['Datastore.Audit', 'Datastore.AllocateSpace'], true))
    .map((s) => ({ storage: s.id, type: s.type, content: s.content.join(','), shared: s.shared ? 1 : 0, ...(s.nodes ? { nodes: s.nodes.join(',') } : {}) }));
}

export function storageStatus({ cluster, params }: HandlerContext): unknown {
  const s = cluster.storages.get(params.storage);
  if (!s || (s.nodes && !s.nodes.includes(params.node))) throw fail(`storage '${params.storage}' does not exist`);
  const used = [...cluster.volumes].filter((v) => v.startsWith(`${s.id}:`)).length * 2 * 2 ** 30;
  return { type: s.type, content: s.content.join(','), shared: s.shared ? 1 : 0, enabled: 1, active: 1, total: s.total, used, avail: s.total - used };
}

export function cloudinitRegenerate({ cluster, params }: HandlerContext): null {
  const vm = cluster.vmOn(params.node, params.vmid);
  cluster.assertUnlocked(vm);
  return null;
}

export function cloudinitView({ cluster, params }: HandlerContext): unknown[] {
  const vm = cluster.vmOn(params.node, params.vmid);
  const keys = new Set([...Object.keys(vm.config), ...Object.keys(vm.pending)].filter((k) => CI_KEYS.test(k)));
  return [...keys].sort().map((key) => ({
    key,
    ...(key in vm.config ? { value: key === 'cipassword' ? '**********' : String(vm.config[key]) } : {}),
    ...(key in vm.pending ? { pending: String(vm.pending[key]) } : {}),
  }));
}

export function cloudinitDump({ cluster, params }: HandlerContext): string {
  const vm = cluster.vmOn(params.node, params.vmid);
  const c = vm.config;
  const name = String(c.name ?? `vm${vm.vmid}`);
  if (params.type === 'meta') return `instance-id: ${createHash('sha1').update(JSON.stringify(c)).digest('hex')}\n`;
  if (params.type === 'network') {
    const lines = ['version: 1', 'config:'];
    for (const [k, v] of Object.entries(c)) {
      const n = /^ipconfig(\d+)$/.exec(k)?.[1];
      if (n === undefined) continue;
      const ip = /(?:^|,)ip=([^,]+)/.exec(String(v))?.[1];
      lines.push(`    - type: physical`, `      name: eth${n}`, `      subnets:`, ip === 'dhcp' || ip === undefined ? `      - type: dhcp4` : `      - type: static\n        address: '${ip}'`);
    }
    return `${lines.join('\n')}\n`;
  }
  let keys: string[] = [];
  try {
    keys = c.sshkeys ? decodeURIComponent(String(c.sshkeys)).split('\n').filter((l) => l.trim()) : [];
  } catch {
    keys = [];
  }
  const user = [
    '#cloud-config',
    `hostname: ${name}`,
    'manage_etc_hosts: true',
    'fqdn: ' + name,
    ...(c.ciuser ? [`user: ${c.ciuser}`] : []),
    ...(keys.length ? ['ssh_authorized_keys:', ...keys.map((k) => `  - ${k}`)] : []),
    'chpasswd:',
    '  expire: False',
    `package_upgrade: ${bool(c.ciupgrade ?? 1) ? 'true' : 'false'}`,
  ];
  return `${user.join('\n')}\n`;
}

export function resizeDisk(ctx: HandlerContext): string {
  const { cluster, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  cluster.assertUnlocked(vm);
  const disk: string = params.disk;
  const value = vm.config[disk];
  if (value === undefined) throw fail(`disk '${disk}' does not exist`);
  const cur = /(?:^|,)size=(\d+(?:\.\d+)?)([KMGT]?)/.exec(String(value));
  const toBytes = (n: string, unit: string): number => Number(n) * 1024 ** (['', 'K', 'M', 'G', 'T'].indexOf(unit || ''));
  const curBytes = cur ? toBytes(cur[1]!, cur[2]!) : 0;
  const m = /^(\+?)(\d+(?:\.\d+)?)([KMGT]?)$/.exec(String(params.size));
  if (!m) throw fail(`invalid size '${params.size}'`);
  const newBytes = m[1] ? curBytes + toBytes(m[2]!, m[3]!) : toBytes(m[2]!, m[3]!);
  if (newBytes < curBytes) throw fail(`shrinking disks is not supported`);
  return vmTask(ctx, vm, {
    type: 'qmresize',
    durationMs: cluster.timing.configMs,
    finish: () => {
      const gib = newBytes / 2 ** 30;
      const size = Number.isInteger(gib) ? `${gib}G` : `${Math.ceil(newBytes / 2 ** 20)}M`;
      vm.config[disk] = /(?:^|,)size=/.test(String(value)) ? String(value).replace(/size=[^,]+/, `size=${size}`) : `${value},size=${size}`;
    },
  }).upid;
}

export function poolById({ cluster, caller, params }: HandlerContext): unknown {
  const p = cluster.pools.get(params.poolid);
  if (!p) throw fail(`pool '${params.poolid}' does not exist`);
  if (!hasPrivs(cluster, caller, `/pool/${p.poolid}`, ['Pool.Audit'], false)) throw permError(`/pool/${p.poolid}, Pool.Audit`);
  const members = [...cluster.vms.values()]
    .filter((v) => v.pool === p.poolid && (params.type === undefined || params.type === 'qemu'))
    .map((v) => ({ id: `qemu/${v.vmid}`, node: v.node, type: 'qemu', vmid: v.vmid, name: String(v.config.name ?? ''), status: v.status, tags: tagSet(v.config.tags as string | undefined).join(';') }));
  return { ...(p.comment !== undefined ? { comment: p.comment } : {}), members };
}

export function suspendVm(ctx: HandlerContext): string {
  const { cluster, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  if (vm.status !== 'running') throw fail(`VM ${vm.vmid} not running`);
  return vmTask(ctx, vm, {
    type: 'qmpause', durationMs: cluster.timing.stopMs,
    precheck: () => lockCheck(ctx, vm),
    finish: () => {
      vm.paused = true;
    },
  }).upid;
}

export function resumeVm(ctx: HandlerContext): string {
  const { cluster, params } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  if (vm.status !== 'running') throw fail(`VM ${vm.vmid} not running`);
  return vmTask(ctx, vm, {
    type: 'qmresume', durationMs: cluster.timing.stopMs,
    finish: () => {
      vm.paused = false;
    },
  }).upid;
}
