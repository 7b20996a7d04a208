/**
 * The adb-pool provider's methods, wired from one file per role. The pool is the configured
 * device list; who holds which device is the claims directory (claims.ts), shared by every
 * vmhub process on the host, so nothing per lease lives in memory here.
 */
import { VmhubError, type ProviderContext, type ProviderMethods } from '@vmhub/core';
import { deviceChannel } from './adb-pool-channel.ts';
import { devicePort } from './adb-pool-connect.ts';
import { claimDevice } from './adb-pool-create.ts';
import { releaseDevice } from './adb-pool-destroy.ts';
import { listClaimed } from './adb-pool-list.ts';
import { deviceReady } from './adb-pool-ready.ts';
import { deviceState } from './adb-pool-state.ts';
import { poolAvailability, poolStatus } from './adb-pool-status.ts';
import { Claims } from './claims.ts';
import { devicesOf, stateDir, type AdbPoolOptions } from './options.ts';

export function adbPoolMethods(options: AdbPoolOptions, context: ProviderContext): ProviderMethods {
  const devices = devicesOf(options);
  const names = devices.map((d) => d.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new VmhubError('INVALID_REQUEST', `[vmhub] [provider-adb-pool] two devices are named "${twice}": give each a unique name in providers.adb-pool.devices`, { source: 'provider-adb-pool' });
  const claims = new Claims(stateDir(options));
  return {
    status: () => poolStatus(devices, claims),
    availability: (template) => poolAvailability(devices, template),
    create: (request) => claimDevice(devices, claims, options, request),
    ready: (machine, request) => deviceReady(devices, claims, options, machine, request),
    destroy: (machine) => releaseDevice(devices, claims, options, machine, context.log),
    list: async () => listClaimed(claims, context.identityPrefix),
    state: (machine) => deviceState(devices, claims, machine),
    channel: (machine) => deviceChannel(devices, claims, options, machine),
    connect: (machine, port, opts) => devicePort(devices, claims, machine, port, opts?.signal),
  };
}
