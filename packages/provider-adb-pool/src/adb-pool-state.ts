/**
 * state(): 'gone' unless the device's claim carries the machine's identity (like destroy);
 * 'running' when something accepts TCP at the device's address, else 'stopped' (the device was
 * unplugged, powered off or its adbd stopped: the lease ends with MACHINE_LOST).
 */
import type { MachineRef, MachineState } from '@vmhub/core';
import type { Claims } from './claims.ts';
import { reachable } from './device.ts';
import type { Device } from './options.ts';

export async function deviceState(devices: Device[], claims: Claims, machine: MachineRef): Promise<MachineState> {
  const claim = claims.read(machine.external_id);
  const device = devices.find((d) => d.name === machine.external_id);
  if (!claim || claim.identity !== machine.identity || !device) return 'gone';
  return (await reachable(device)) ? 'running' : 'stopped';
}
