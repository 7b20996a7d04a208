/**
 * destroy(): reset the device and give it back to the pool — only after verifying the claim.
 * 1. The claim of machine.external_id must carry machine.identity; else 'identity_mismatch'
 *    (another lease holds the device now) — or 'already_gone' when nobody holds it.
 * 2. The device must answer with the serial recorded at claim time; another device at that
 *    address is not reset ('identity_mismatch', logged; the claim stays for the operator).
 * 3. Reset (docs/providers/adb-pool.md says exactly what it does and does not do):
 *    uninstall the third-party packages that were not there when the lease began; force-stop
 *    every third-party package; delete /data/local/tmp/vmhub-*; press HOME (reset.home);
 *    reboot and wait for sys.boot_completed=1 (reset.reboot).
 * 4. Drop the claim: 'destroyed'.
 * An unreachable device throws NODE_UNAVAILABLE (retryable): the claim stays, so the device is
 * not handed out un-reset, and the reaper retries.
 */
import type { AdbChannel } from '@vmhub/channel-adb';
import { VmhubError, type DestroyOutcome, type MachineRef, type ProviderContext } from '@vmhub/core';
import type { Claims } from './claims.ts';
import { getprop, openDevice, run, SOURCE, thirdPartyPackages } from './device.ts';
import { waitRebooted } from './adb-pool-ready.ts';
import type { AdbPoolOptions, Device } from './options.ts';

export async function releaseDevice(devices: Device[], claims: Claims, options: AdbPoolOptions, machine: MachineRef, log: ProviderContext['log']): Promise<DestroyOutcome> {
  const claim = claims.read(machine.external_id);
  if (!claim) return 'already_gone';
  if (claim.identity !== machine.identity) {
    log('warn', `[vmhub] [${SOURCE}] refusing to release device ${claim.device}: it is claimed by ${claim.identity}, not ${machine.identity}`, { device: claim.device, identity: machine.identity });
    return 'identity_mismatch';
  }
  const device = devices.find((d) => d.name === claim.device);
  if (!device || claim.claiming || !claim.serial) {
    // Removed from the config, or a claim whose create never finished: nothing ran under the lease.
    claims.release(claim.device, claim.identity);
    return 'destroyed';
  }
  let channel: AdbChannel;
  try {
    channel = await openDevice(device, options);
  } catch (err) {
    throw new VmhubError('NODE_UNAVAILABLE', `[vmhub] [${SOURCE}] device ${device.name} (${device.address}) does not answer, so it cannot be reset; it stays claimed by ${claim.identity} until it answers: ${(err as Error).message}`, { source: SOURCE, cause: err });
  }
  try {
    const serial = await getprop(channel, device, 'ro.serialno');
    if (serial !== claim.serial) {
      log('error', `[vmhub] [${SOURCE}] device ${device.name} at ${device.address} now answers with serial ${JSON.stringify(serial)}, claimed as ${JSON.stringify(claim.serial)}: not resetting another device; remove ${claims.dir}/${device.name}.json by hand once checked`, { device: device.name });
      return 'identity_mismatch';
    }
    await reset(channel, device, options, claim.baseline_packages ?? [], log);
  } finally {
    await channel.close();
  }
  if (options.reset.reboot) await waitRebooted(device, options, options.reset.reboot_timeout_seconds * 1000);
  claims.release(claim.device, claim.identity);
  return 'destroyed';
}

async function reset(channel: AdbChannel, device: Device, options: AdbPoolOptions, baseline: string[], log: ProviderContext['log']): Promise<void> {
  const keep = new Set(baseline);
  const now = await thirdPartyPackages(channel, device);
  for (const pkg of now.filter((p) => !keep.has(p))) {
    const out = await run(channel, device, `uninstalling ${pkg}`, ['pm', 'uninstall', pkg], 120_000).catch((err: Error) => err.message);
    if (!/^Success/m.test(out)) log('warn', `[vmhub] [${SOURCE}] device ${device.name}: pm uninstall ${pkg} said ${out.trim().slice(0, 200)}`, { device: device.name, package: pkg });
  }
  for (const pkg of now.filter((p) => keep.has(p))) {
    await run(channel, device, `force-stopping ${pkg}`, ['am', 'force-stop', pkg]);
  }
  // A glob for the device's shell, fixed text: nothing of the lease's is spliced in.
  await run(channel, device, 'clearing /data/local/tmp/vmhub-*', ['sh', '-c', 'rm -rf /data/local/tmp/vmhub-*']);
  if (options.reset.home) {
    await run(channel, device, 'pressing HOME', ['input', 'keyevent', 'KEYCODE_HOME']).catch((err: Error) => log('warn', err.message, { device: device.name }));
  }
  if (options.reset.reboot) {
    // adbd drops the connection as the device goes down: the exec's own outcome says nothing.
    await channel.exec(['reboot'], { cwd: '/', timeoutMs: 15_000 }).catch(() => undefined);
  }
}
