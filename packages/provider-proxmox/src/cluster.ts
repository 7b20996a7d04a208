/**
 * What an endpoint holds: its release, nodes, guests. And the placement rule: among online nodes
 * that hold the golden template (and pass the template's node/endpoint constraints), the one with
 * the most free memory.
 */
import { VmhubError } from '@vmhub/core';
import type { PveClient } from './pve-client.ts';
import { isPveApiError, SOURCE, toVmhubError } from './pve-errors.ts';
import type { ProxmoxTemplateOptions } from './template-options.ts';

export interface VmResource {
  id?: string;
  vmid: number;
  node: string;
  type: string;
  status?: string;
  name?: string;
  template?: number | boolean;
  tags?: string;
  lock?: string;
  uptime?: number;
}

export interface NodeInfo {
  node: string;
  status: string;
  maxmem?: number;
  mem?: number;
}

export function splitTags(tags: string | undefined): string[] {
  return (tags ?? '').split(/[;,\s]+/).map((t) => t.trim().toLowerCase()).filter(Boolean);
}

export async function listGuests(client: PveClient): Promise<VmResource[]> {
  const all = await client.get<VmResource[]>('/cluster/resources', { type: 'vm' });
  return all.filter((r) => r.type === 'qemu');
}

/** `nextid?vmid=` answers 400 for a VMID in use, whatever the token may see of that VM. */
export async function vmidFree(client: PveClient, vmid: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await client.get('/cluster/nextid', { vmid }, { signal });
    return true;
  } catch (err) {
    if (isPveApiError(err) && err.status === 400) return false;
    throw err;
  }
}

const releases = new WeakMap<PveClient, number>();

/** `9.1`, `8.4`: from /version, cached per client. */
export async function releaseOf(client: PveClient): Promise<number> {
  const hit = releases.get(client);
  if (hit !== undefined) return hit;
  const v = await client.get<{ release?: string; version?: string }>('/version');
  const rel = Number.parseFloat(v.release ?? v.version ?? '0');
  releases.set(client, rel);
  return rel;
}

export function findGolden(guests: VmResource[], golden: string): VmResource[] {
  const byId = /^\d+$/.test(golden) ? Number(golden) : undefined;
  return guests.filter((g) => (g.template === 1 || g.template === true) && (byId !== undefined ? g.vmid === byId : g.name === golden));
}

export interface Placement {
  client: PveClient;
  node: string;
  templateVmid: number;
}

export async function choosePlacement(clients: PveClient[], golden: string, opts: ProxmoxTemplateOptions, minFreeMb: number, signal?: AbortSignal): Promise<Placement> {
  const candidates: { placement: Placement; free: number }[] = [];
  let sawGolden = false;
  let sawOnline = false;
  let bestFree = -Infinity;
  const failures: string[] = [];
  for (const client of clients) {
    if (opts.endpoints && !opts.endpoints.includes(client.endpoint.id)) continue;
    let nodes: NodeInfo[];
    let guests: VmResource[];
    try {
      [nodes, guests] = await Promise.all([client.get<NodeInfo[]>('/nodes', {}, { signal }), listGuests(client)]);
    } catch (err) {
      failures.push(toVmhubError(err, `reading node "${client.endpoint.id}"`).message);
      continue;
    }
    for (const g of findGolden(guests, golden)) {
      if (opts.nodes && !opts.nodes.includes(g.node)) continue;
      sawGolden = true;
      const node = nodes.find((n) => n.node === g.node);
      if (!node || node.status !== 'online') continue;
      sawOnline = true;
      const free = (node.maxmem ?? 0) - (node.mem ?? 0);
      bestFree = Math.max(bestFree, free);
      if (node.maxmem !== undefined && free < minFreeMb * 1024 * 1024) continue;
      candidates.push({ placement: { client, node: g.node, templateVmid: g.vmid }, free });
    }
  }
  if (candidates.length > 0) {
    candidates.sort((a, b) => b.free - a.free);
    return candidates[0].placement;
  }
  if (!sawGolden && failures.length > 0) {
    throw new VmhubError('NODE_UNAVAILABLE', `[vmhub] [${SOURCE}] no Proxmox endpoint answered: ${failures.join('; ')}`, { source: SOURCE });
  }
  if (!sawGolden) {
    throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] golden template "${golden}" not found${opts.nodes ? ` on nodes ${opts.nodes.join(', ')}` : ''}: give the template's VMID or name (a VM converted to a template)`, { source: SOURCE, hint: 'Check the template\'s golden reference; `qm list` on the node shows VMIDs.' });
  }
  if (!sawOnline) {
    throw new VmhubError('NODE_UNAVAILABLE', `[vmhub] [${SOURCE}] every node holding golden template "${golden}" is offline`, { source: SOURCE });
  }
  throw new VmhubError('HOST_CAPACITY', `[vmhub] [${SOURCE}] no node holding golden template "${golden}" has the ${minFreeMb} MiB of free memory it needs (best: ${Math.round(bestFree / 1048576)} MiB free): release leases or add capacity`, { source: SOURCE });
}
