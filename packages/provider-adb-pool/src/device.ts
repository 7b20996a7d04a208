/**
 * Talking to a pool device outside a lease session (claim probe, readiness, reset): a channel
 * of its own through the adb server, closed after use, and `sh -c` scripts run on it.
 */
import { connect as netConnect } from 'node:net';
import { openAdbChannel, type AdbChannel } from '@vmhub/channel-adb';
import { VmhubError } from '@vmhub/core';
import type { AdbPoolOptions, Device } from './options.ts';

export const SOURCE = 'provider-adb-pool';

export function openDevice(device: Device, options: AdbPoolOptions): Promise<AdbChannel> {
  return openAdbChannel({ address: { host: device.host, port: device.port }, adb: options.adb, maxFileBytes: options.max_file_bytes });
}

/** Run argv on the device; stdout as text when it exits 0, else a typed error naming the step. */
export async function run(channel: AdbChannel, device: Device, step: string, argv: string[], timeoutMs = 30_000): Promise<string> {
  const r = await channel.exec(argv, { cwd: '/', timeoutMs, maxOutputBytes: 1024 * 1024 });
  if (r.exit_code === 0) return r.stdout.toString('utf8');
  const why = r.timed_out ? `timed out after ${timeoutMs} ms` : `exited ${r.exit_code}: ${(r.stderr.toString('utf8') || r.stdout.toString('utf8')).trim().slice(0, 300)}`;
  throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] ${step} on device ${device.name} (${device.address}): ${argv.join(' ')} ${why}`, { source: SOURCE, details: { device: device.name, step } });
}

export async function getprop(channel: AdbChannel, device: Device, key: string): Promise<string> {
  return (await run(channel, device, `getprop ${key}`, ['getprop', key], 10_000)).trim();
}

/** `pm list packages -3` as names. */
export async function thirdPartyPackages(channel: AdbChannel, device: Device): Promise<string[]> {
  const out = await run(channel, device, 'listing third-party packages', ['pm', 'list', 'packages', '-3'], 60_000);
  return out.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('package:')).map((l) => l.slice('package:'.length).split('=').pop()!).sort();
}

/** Does something accept TCP connections at the device's address? (no adb handshake, no side effects) */
export function reachable(device: Device, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = netConnect({ host: device.host, port: device.port });
    const done = (ok: boolean) => { s.destroy(); resolve(ok); };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}
