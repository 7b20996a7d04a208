/**
 * ready(): stage `device` (adbd answers a command through the adb server), then stage `boot`
 * (`getprop sys.boot_completed` prints 1, as Android sets it once the system is up). Bounded by
 * the template's ready_timeout_seconds (default 120); BOOT_TIMEOUT names the stage and what it
 * last saw.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type MachineRef, type ReadyRequest } from '@vmhub/core';
import type { Claims } from './claims.ts';
import { getprop, openDevice, SOURCE } from './device.ts';
import type { AdbPoolOptions, Device } from './options.ts';

export function deviceOf(devices: Device[], claims: Claims, machine: MachineRef): Device {
  const claim = claims.read(machine.external_id);
  const device = devices.find((d) => d.name === machine.external_id);
  if (!claim || claim.identity !== machine.identity || !device) {
    throw new VmhubError('MACHINE_LOST', `[vmhub] [${SOURCE}] device ${machine.external_id} is no longer claimed by ${machine.identity}`, { source: SOURCE });
  }
  return device;
}

/** Wait until the device answers and says it has booted; `stage` reports progress. */
export async function waitBooted(device: Device, options: AdbPoolOptions, timeoutMs: number, signal?: AbortSignal, stage?: ReadyRequest['stage']): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let name = 'device';
  let detail = 'not asked yet';
  stage?.('device', 'running');
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    if (signal?.aborted) throw new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] readiness of device ${device.name} aborted at stage ${name}`, { source: SOURCE });
    try {
      const channel = await openDevice(device, options);
      try {
        if (name === 'device') {
          stage?.('device', 'done');
          name = 'boot';
          stage?.('boot', 'running');
        }
        const booted = await getprop(channel, device, 'sys.boot_completed');
        if (booted === '1') {
          stage?.('boot', 'done');
          return;
        }
        detail = `sys.boot_completed is ${JSON.stringify(booted)}`;
      } finally {
        await channel.close();
      }
    } catch (err) {
      detail = (err as Error).message;
    }
    if (Date.now() + delay > deadline) {
      stage?.(name, 'failed', detail);
      throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] device ${device.name} (${device.address}) not ready after ${Math.round(timeoutMs / 1000)} s: stage ${name} stuck: ${detail}`, { source: SOURCE, details: { stage: name, detail } });
    }
    await sleep(delay, undefined, { signal }).catch(() => undefined);
  }
}

export async function deviceReady(devices: Device[], claims: Claims, options: AdbPoolOptions, machine: MachineRef, request: ReadyRequest): Promise<void> {
  const device = deviceOf(devices, claims, machine);
  await waitBooted(device, options, (request.template.ready_timeout_seconds ?? 120) * 1000, request.signal, request.stage);
}

/**
 * After `reboot`: first see the device go down (unreachable, or sys.boot_completed no longer 1),
 * then wait for it to have booted again — so a device still answering from before its reboot
 * is not taken for a rebooted one.
 */
export async function waitRebooted(device: Device, options: AdbPoolOptions, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let down = false;
    try {
      const channel = await openDevice(device, options);
      try {
        down = (await getprop(channel, device, 'sys.boot_completed')) !== '1';
      } finally {
        await channel.close();
      }
    } catch {
      down = true;
    }
    if (down) break;
    if (Date.now() > deadline) throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] device ${device.name} did not go down within ${Math.round(timeoutMs / 1000)} s of reboot`, { source: SOURCE });
    await sleep(250);
  }
  await waitBooted(device, options, Math.max(1000, deadline - Date.now()));
}
