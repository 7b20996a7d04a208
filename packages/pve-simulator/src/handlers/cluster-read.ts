/**
 * Cluster-wide reads answered from the "replicated" state: version, nodes, node status, storage,
 * pools, /cluster/resources, /cluster/status, /cluster/nextid and /access/permissions.
 */
import type { HandlerContext } from '../handler.ts';
import { PveHttpError, paramError, permError } from '../pve-error.ts';
import { hasPrivs, normalizePath, privilegesAt } from '../auth.ts';
import { vmSummary } from './qemu-read.ts';

export function version({ cluster }: HandlerContext): unknown {
  return cluster.mode === '9'
    ? { version: '9.1.9', release: '9.1', repoid: 'e5010dce6a5f1c2b' }
    : { version: '8.4.14', release: '8.4', repoid: 'b0c1d2e3f4a5b6c7' };
}

export function nextId({ cluster, params }: HandlerContext): unknown {
  if (params.vmid !== undefined) {
    if (cluster.vms.has(params.vmid)) throw paramError({ vmid: `VM ${params.vmid} already exists` });
    return String(params.vmid);
  }
  const id = cluster.nextFreeId();
  if (cluster.nextIdRaces > 0) {
    // another client clones into the same id before this caller can (as if right after we answered)
    cluster.nextIdRaces--;
    cluster.seedVm({ vmid: id, name: `racer-${id}`, tags: 'foreign' });
  }
  // PVE sends the id as a JSON string although the schema says integer (a documented quirk)
  return String(id);
}

export function listNodes({ cluster, caller }: HandlerContext): unknown[] {
  return [...cluster.nodes.values()].map((n) => {
    const base = { node: n.name, status: n.online ? 'online' : 'offline', level: '' };
    if (!n.online || !hasPrivs(cluster, caller, `/nodes/${n.name}`, ['Sys.Audit'], false)) return base;
    return { ...base, cpu: 0.05, maxcpu: n.cpus, mem: cluster.nodeMemoryUsed(n.name), maxmem: n.memoryTotal, uptime: Math.floor(process.uptime()) + 86400, ...(cluster.fingerprint ? { ssl_fingerprint: cluster.fingerprint } : {}) };
  });
}

export function nodeIndex({ cluster, params }: HandlerContext): unknown[] {
  if (!cluster.nodes.has(params.node)) throw new PveHttpError(500, `no such node '${params.node}'`);
  return ['qemu', 'lxc', 'storage', 'tasks', 'status', 'network', 'version'].map((name) => ({ name }));
}

export function nodeStatus({ cluster, params }: HandlerContext): unknown {
  const n = cluster.nodes.get(params.node);
  if (!n) throw new PveHttpError(500, `no such node '${params.node}'`);
  const used = cluster.nodeMemoryUsed(n.name);
  return {
    cpu: 0.05,
    cpuinfo: { cores: n.cpus, cpus: n.cpus, model: 'Simulated CPU', sockets: 1 },
    memory: { total: n.memoryTotal, used, free: n.memoryTotal - used, available: n.memoryTotal - used },
    loadavg: ['0.10', '0.20', '0.30'],
    rootfs: { total: 100 * 2 ** 30, used: 10 * 2 ** 30, free: 90 * 2 ** 30, avail: 90 * 2 ** 30 },
    'current-kernel': { sysname: 'Linux', release: cluster.mode === '9' ? '6.14.8-2-pve' : '6.8.12-9-pve', version: '#1 SMP PREEMPT_DYNAMIC PMX', machine: 'x86_64' },
    'boot-info': { mode: 'efi', secureboot: 0 },
    pveversion: cluster.mode === '9' ? 'pve-manager/9.1.9/e5010dce6a5f1c2b' : 'pve-manager/8.4.14/b0c1d2e3f4a5b6c7',
    uptime: Math.floor(process.uptime()) + 86400,
  };
}

function storageEntry(cluster: HandlerContext['cluster'], id: string, node: string): Record<string, unknown> {
  const s = cluster.storages.get(id)!;
  const used = [...cluster.volumes].filter((v) => v.startsWith(`${id}:`)).length * 2 * 2 ** 30;
  return {
    storage: s.id,
    type: s.type,
    content: s.content.join(','),
    shared: s.shared ? 1 : 0,
    enabled: 1,
    active: 1,
    total: s.total,
    used,
    avail: s.total - used,
    used_fraction: used / s.total,
    node,
  };
}

export function nodeStorage({ cluster, caller, params }: HandlerContext): unknown[] {
  const out: unknown[] = [];
  for (const s of cluster.storages.values()) {
    if (s.nodes && !s.nodes.includes(params.node)) continue;
    if (params.storage !== undefined && s.id !== params.storage) continue;
    if (params.content !== undefined && !s.content.includes(params.content)) continue;
    if (!hasPrivs(cluster, caller, `/storage/${s.id}`, ['Datastore.Audit', 'Datastore.AllocateSpace'], true)) continue;
    const e = storageEntry(cluster, s.id, params.node);
    delete e.node;
    out.push(e);
  }
  return out;
}

export function clusterStatus({ cluster }: HandlerContext): unknown[] {
  const nodes = [...cluster.nodes.values()];
  return [
    { type: 'cluster', id: 'cluster', name: 'vmhub-sim', nodes: nodes.length, quorate: 1, version: 3 },
    ...nodes.map((n, i) => ({ type: 'node', id: `node/${n.name}`, name: n.name, nodeid: i + 1, ip: `127.0.0.${i + 1}`, online: n.online ? 1 : 0, local: i === 0 ? 1 : 0, level: '' })),
  ];
}

export function clusterResources({ cluster, caller, params }: HandlerContext): unknown[] {
  const type: string | undefined = params.type;
  const out: unknown[] = [];
  const lag = cluster.opts.resourcesLagMs ?? 0;
  if (type === undefined || type === 'vm') {
    for (const vm of cluster.vms.values()) {
      if (!hasPrivs(cluster, caller, `/vms/${vm.vmid}`, ['VM.Audit'], false)) continue;
      const s = vmSummary(cluster, vm);
      const fresh = cluster.now() - vm.createdAt < lag;
      const e: Record<string, unknown> = { ...s, id: `qemu/${vm.vmid}`, type: 'qemu', node: vm.node, template: s.template ?? 0, maxcpu: s.cpus, hastate: undefined };
      delete e.cpus;
      delete e.pid;
      delete e.hastate;
      if (vm.pool !== undefined) e.pool = vm.pool;
      if (fresh) {
        e.status = 'unknown';
        delete e.name;
      }
      out.push(e);
    }
  }
  if (type === undefined || type === 'node') {
    for (const n of cluster.nodes.values()) {
      out.push({ id: `node/${n.name}`, type: 'node', node: n.name, status: n.online ? 'online' : 'offline', maxcpu: n.cpus, cpu: 0.05, maxmem: n.memoryTotal, mem: cluster.nodeMemoryUsed(n.name), maxdisk: 100 * 2 ** 30, disk: 10 * 2 ** 30, uptime: 86400, level: '' });
    }
  }
  if (type === undefined || type === 'storage') {
    for (const n of cluster.nodes.values()) {
      for (const s of cluster.storages.values()) {
        if (s.nodes && !s.nodes.includes(n.name)) continue;
        const e = storageEntry(cluster, s.id, n.name);
        out.push({ id: `storage/${n.name}/${s.id}`, type: 'storage', storage: s.id, node: n.name, status: 'available', content: e.content, plugintype: s.type, shared: e.shared, maxdisk: e.total, disk: e.used });
      }
    }
  }
  if (type === undefined) {
    for (const p of cluster.pools.values()) out.push({ id: `/pool/${p.poolid}`, type: 'pool', pool: p.poolid });
  }
  return out;
}

export function listPools({ cluster, caller, params }: HandlerContext): unknown[] {
  return [...cluster.pools.values()]
    .filter((p) => (params.poolid === undefined || p.poolid === params.poolid) && hasPrivs(cluster, caller, `/pool/${p.poolid}`, ['Pool.Audit'], false))
    .map((p) => ({
      poolid: p.poolid,
      ...(p.comment !== undefined ? { comment: p.comment } : {}),
      ...(params.poolid !== undefined
        ? {
            members: [...cluster.vms.values()]
              .filter((v) => v.pool === p.poolid && (params.type === undefined || params.type === 'qemu'))
              .map((v) => ({ id: `qemu/${v.vmid}`, node: v.node, type: 'qemu', vmid: v.vmid, status: v.status, name: String(v.config.name ?? '') })),
          }
        : {}),
    }));
}

export function permissions({ cluster, caller, params }: HandlerContext): unknown {
  const target: string = params.userid ?? caller.tokenId;
  const ownToken = target === caller.tokenId || target.startsWith(`${caller.user}!`);
  if (!ownToken && !hasPrivs(cluster, caller, '/access', ['Sys.Audit'], false)) throw permError(`/access, Sys.Audit`);
  const token = cluster.tokens.get(target);
  if (!token) return {};
  const paths: string[] = params.path !== undefined
    ? [normalizePath(params.path)]
    : [
        ...new Set([
          '/', '/access', '/access/groups', '/nodes', '/pool', '/sdn', '/storage', '/vms',
          ...token.acl.map((a) => normalizePath(a.path)),
          ...[...cluster.vms.values()].filter((v) => v.pool !== undefined).flatMap((v) => [`/pool/${v.pool}`, `/vms/${v.vmid}`]),
        ]),
      ];
  const out: Record<string, Record<string, number>> = {};
  for (const p of paths) {
    // every listed path appears, an empty object meaning "nothing here"
    const privs = privilegesAt(cluster, token, p);
    out[p] = Object.fromEntries([...privs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, prop]) => [k, prop ? 1 : 0]));
  }
  return out;
}
