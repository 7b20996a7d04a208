/**
 * availability(): whether a template's golden is on an online node and the token may do
 * everything the template needs (read from /access/permissions, never guessed from a failed create).
 */
import type { TemplateConfig } from '@vmhub/core';
import { findGolden, listGuests, releaseOf, type NodeInfo } from './cluster.ts';
import { bridgePaths, describeMissing, diskStorages, missing, requirements, type PermissionMap } from './privileges.ts';
import { toVmhubError } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { templateOptions } from './template-options.ts';

export async function templateAvailability(rt: Runtime, template: TemplateConfig): Promise<{ availability: 'available' | 'unavailable'; reason?: string }> {
  try {
    const t = templateOptions(template);
    const reasons: string[] = [];
    for (const client of rt.clients) {
      if (t.endpoints && !t.endpoints.includes(client.endpoint.id)) continue;
      try {
        const guests = await listGuests(client);
        const goldens = findGolden(guests, template.golden).filter((g) => !t.nodes || t.nodes.includes(g.node));
        if (goldens.length === 0) {
          reasons.push(`golden template "${template.golden}" not found on node "${client.endpoint.id}"`);
          continue;
        }
        const nodes = await client.get<NodeInfo[]>('/nodes');
        const online = goldens.filter((g) => nodes.some((n) => n.node === g.node && n.status === 'online'));
        if (online.length === 0) {
          reasons.push(`every node holding "${template.golden}" on "${client.endpoint.id}" is offline`);
          continue;
        }
        const [release, perms] = await Promise.all([releaseOf(client), client.get<PermissionMap>('/access/permissions')]);
        for (const g of online) {
          const config = await client.get<Record<string, unknown>>(`/nodes/${g.node}/qemu/${g.vmid}/config`).catch(() => ({}));
          const storages = t.full_clone && t.storage ? [t.storage] : diskStorages(config);
          const gaps = missing(perms, requirements({
            major: Math.floor(release), templateVmid: g.vmid, pool: t.pool, storages, bridges: bridgePaths(config), channel: t.channel === 'agent' ? 'agent' : 'ssh', // adb needs what ssh needs: the agent's address
            cpus: template.resources?.cpus !== undefined, memory: template.resources?.memory_mb !== undefined,
          }));
          if (gaps.length === 0) return { availability: 'available' };
          reasons.push(`missing privilege ${describeMissing(client.endpoint.tokenId, gaps)}`);
        }
      } catch (err) {
        reasons.push(toVmhubError(err, `checking node "${client.endpoint.id}"`).message);
      }
    }
    return { availability: 'unavailable', reason: reasons.join('; ') || 'no endpoint is allowed by the template\'s provider_options.endpoints' };
  } catch (err) {
    return { availability: 'unavailable', reason: err instanceof Error ? err.message : String(err) };
  }
}
