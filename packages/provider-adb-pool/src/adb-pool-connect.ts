/**
 * connect(): a TCP stream to `port` at the device's host address (a device on the network, or
 * the host of an emulator) — the device's own loopback is not reachable this way.
 */
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { VmhubError, type MachineRef } from '@vmhub/core';
import type { Claims } from './claims.ts';
import { deviceOf } from './adb-pool-ready.ts';
import { SOURCE } from './device.ts';
import type { Device } from './options.ts';

export function devicePort(devices: Device[], claims: Claims, machine: MachineRef, port: number, signal?: AbortSignal): Promise<Duplex> {
  const device = deviceOf(devices, claims, machine);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] connect to port ${port} of device ${device.name} cancelled`, { source: SOURCE }));
      return;
    }
    const s = netConnect({ host: device.host, port });
    const onAbort = () => s.destroy(new Error('cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    s.once('connect', () => {
      signal?.removeEventListener('abort', onAbort);
      resolve(s);
    });
    s.once('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] port ${port} at ${device.host} (device ${device.name}) refused or unreachable: ${err.message}`, { source: SOURCE, retryable: true, details: { port } }));
    });
  });
}
