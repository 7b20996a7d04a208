/**
 * status() and availability(): never throw. A pool with no devices is not configured (vm_health
 * lists it as such instead of degraded). Each device is a node: claimed (by which lease), free,
 * or unreachable (nothing accepts TCP at its address; no adb handshake, so asking never disturbs
 * a lease on it).
 */
import type { ProviderStatus, TemplateConfig } from '@vmhub/core';
import type { Claims } from './claims.ts';
import { templateDevices } from './adb-pool-create.ts';
import { reachable } from './device.ts';
import type { Device } from './options.ts';

export async function poolStatus(devices: Device[], claims: Claims): Promise<ProviderStatus> {
  if (devices.length === 0) {
    return { ok: false, configured: false, reason: 'no devices configured: list them in providers.adb-pool.devices ([{address: "host:port", name?}])' };
  }
  try {
    const held = new Map(claims.all().map((c) => [c.device, c]));
    const nodes = await Promise.all(devices.map(async (d) => {
      const c = held.get(d.name);
      const up = await reachable(d);
      const status = !up ? 'unreachable' : c ? 'claimed' : 'free';
      return { id: d.name, status, detail: c ? `${d.address}, claimed by ${c.identity}` : d.address };
    }));
    const free = nodes.filter((n) => n.status === 'free').length;
    const up = nodes.some((n) => n.status !== 'unreachable');
    return { ok: up, ...(up ? {} : { reason: `none of the ${devices.length} device(s) accepts connections at its address` }), nodes, details: { devices: devices.length, free, claims_dir: claims.dir } };
  } catch (err) {
    return { ok: false, reason: `[vmhub] [provider-adb-pool] reading claims in ${claims.dir}: ${(err as Error).message}` };
  }
}

export async function poolAvailability(devices: Device[], template: TemplateConfig): Promise<{ availability: 'available' | 'unavailable'; reason?: string }> {
  try {
    const pool = templateDevices(devices, template);
    if (pool.length === 0) return { availability: 'unavailable', reason: devices.length ? `no device of the pool matches template ${template.id}'s devices filter` : 'no devices configured in providers.adb-pool.devices' };
    const up = await Promise.all(pool.map((d) => reachable(d)));
    if (!up.some(Boolean)) return { availability: 'unavailable', reason: `no device answers: ${pool.map((d) => `${d.name} (${d.address})`).join(', ')}` };
    return { availability: 'available' };
  } catch (err) {
    return { availability: 'unavailable', reason: (err as Error).message };
  }
}
