/**
 * channel(): a new adb GuestChannel (@vmhub/channel-adb: shell protocol v2, sync) to the claimed
 * device through the host's adb server; core closes it when the lease session ends.
 */
import type { GuestChannel, MachineRef } from '@vmhub/core';
import type { Claims } from './claims.ts';
import { deviceOf } from './adb-pool-ready.ts';
import { openDevice } from './device.ts';
import type { AdbPoolOptions, Device } from './options.ts';

export function deviceChannel(devices: Device[], claims: Claims, options: AdbPoolOptions, machine: MachineRef): Promise<GuestChannel> {
  return openDevice(deviceOf(devices, claims, machine), options);
}
