/**
 * create(): claim a free device for the lease. Idempotent per identity (a claim already carrying
 * it is returned). Devices are tried in config order; each is claimed first (claims.ts), then
 * probed over adb — its serial and model and its third-party packages are recorded in the claim
 * (the baseline release returns to). A device that does not answer, or answers with another
 * serial than configured, is given back and the next one tried. None free: HOST_CAPACITY; free
 * ones all unreachable: NODE_UNAVAILABLE naming them.
 */
import { hostname } from 'node:os';
import { assertValid, VmhubError, type CreateRequest, type MachineRef, type TemplateConfig } from '@vmhub/core';
import type { Claim, Claims } from './claims.ts';
import { getprop, openDevice, SOURCE, thirdPartyPackages } from './device.ts';
import { AdbPoolTemplateOptionsSchema, type AdbPoolOptions, type AdbPoolTemplateOptions, type Device } from './options.ts';

export function machineOf(claim: Claim): MachineRef {
  return { identity: claim.identity, external_id: claim.device, details: { address: claim.address, serial: claim.serial, model: claim.model } };
}

export function templateDevices(devices: Device[], template: TemplateConfig): Device[] {
  const opts = assertValid<AdbPoolTemplateOptions>(AdbPoolTemplateOptionsSchema, structuredClone(template.provider_options ?? {}), `[vmhub] [${SOURCE}] template "${template.id}" provider_options`, SOURCE);
  return opts.devices ? devices.filter((d) => opts.devices!.includes(d.name)) : devices;
}

export async function claimDevice(devices: Device[], claims: Claims, options: AdbPoolOptions, request: CreateRequest): Promise<MachineRef> {
  const { identity, template } = request;
  const held = claims.all().find((c) => c.identity === identity);
  if (held?.claiming) throw new VmhubError('LOCK_CONTENTION', `[vmhub] [${SOURCE}] device ${held.device} is being claimed for ${identity} by ${held.holder}`, { source: SOURCE });
  if (held) return machineOf(held);
  const pool = templateDevices(devices, template);
  if (pool.length === 0) {
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] no device serves template ${template.id}: the pool is empty or its devices filter matches none (configure providers.adb-pool.devices)`, { source: SOURCE });
  }
  const unreachable: string[] = [];
  for (const device of pool) {
    if (request.signal.aborted) throw new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] create of ${identity} cancelled`, { source: SOURCE });
    const claim: Claim = { identity, lease_id: request.lease_id, device: device.name, address: device.address, claimed_at: Date.now(), holder: `${hostname()}:${process.pid}`, claiming: true };
    if (!claims.take(claim)) continue;
    try {
      const channel = await openDevice(device, options);
      try {
        const serial = await getprop(channel, device, 'ro.serialno');
        if (device.serial && serial !== device.serial) {
          throw new VmhubError('NODE_UNAVAILABLE', `[vmhub] [${SOURCE}] device ${device.name} at ${device.address} answers with serial ${JSON.stringify(serial)}, not the configured ${JSON.stringify(device.serial)}`, { source: SOURCE });
        }
        const model = await getprop(channel, device, 'ro.product.model');
        const baseline = await thirdPartyPackages(channel, device);
        const done: Claim = { ...claim, serial, model, baseline_packages: baseline };
        delete done.claiming;
        claims.update(done);
        return machineOf(done);
      } finally {
        await channel.close();
      }
    } catch (err) {
      claims.release(device.name, identity);
      unreachable.push(`${device.name} (${device.address}): ${(err as Error).message}`);
    }
  }
  if (unreachable.length === 0) {
    throw new VmhubError('HOST_CAPACITY', `[vmhub] [${SOURCE}] all ${pool.length} device(s) for template ${template.id} are claimed by other leases`, { source: SOURCE, details: { devices: pool.map((d) => d.name) } });
  }
  throw new VmhubError('NODE_UNAVAILABLE', `[vmhub] [${SOURCE}] no free device answered: ${unreachable.join('; ')}`, { source: SOURCE, details: { unreachable } });
}
