/**
 * status(): which endpoints and nodes answer (for vm_health). Never throws: an unreachable
 * endpoint is listed as a node with status "unreachable". availability(template) is rights.ts.
 */
import type { ProviderStatus } from '@vmhub/core';
import { releaseOf, type NodeInfo } from './cluster.ts';
import { toVmhubError } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';

export async function providerStatus(rt: Runtime): Promise<ProviderStatus> {
  let clients;
  try {
    clients = rt.clients;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // No endpoint at all (no PVE_HOST, no VMHUB_NODES): not configured, rather than broken.
    return { ok: false, reason, ...(/node "default" has no API address/.test(reason) ? { configured: false } : {}) };
  }
  const nodes: NonNullable<ProviderStatus['nodes']> = [];
  const endpoints: Record<string, unknown>[] = [];
  for (const client of clients) {
    try {
      const [release, list] = await Promise.all([releaseOf(client), client.get<NodeInfo[]>('/nodes')]);
      endpoints.push({ id: client.endpoint.id, release });
      for (const n of list) {
        const free = n.maxmem !== undefined && n.mem !== undefined ? `${Math.round((n.maxmem - n.mem) / 1048576)} MiB free` : undefined;
        nodes.push({ id: clients.length > 1 ? `${client.endpoint.id}/${n.node}` : n.node, status: n.status, ...(free ? { detail: free } : {}) });
      }
    } catch (err) {
      const e = toVmhubError(err, `reaching node "${client.endpoint.id}"`);
      endpoints.push({ id: client.endpoint.id, error: e.message });
      nodes.push({ id: client.endpoint.id, status: 'unreachable', detail: e.message });
    }
  }
  const ok = nodes.some((n) => n.status === 'online');
  return ok ? { ok, nodes, details: { endpoints } } : { ok, reason: 'no Proxmox node is online and reachable', nodes, details: { endpoints } };
}
