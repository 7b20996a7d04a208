/**
 * @vmhub/provider-adb-pool — existing Android devices and emulators as vmhub machines: a pool
 * listed in config, one lease per device (claims in a shared state directory), ready when
 * sys.boot_completed=1, reset on release (docs/providers/adb-pool.md), reached through the adb
 * GuestChannel of @vmhub/channel-adb.
 */
import { defineProvider, readPackageVersion, type ProviderContext, type TemplateConfig } from '@vmhub/core';
import { adbPoolMethods } from './adb-pool-provider.ts';
import { AdbPoolOptionsSchema, AdbPoolTemplateOptionsSchema, type AdbPoolOptions } from './options.ts';

/** This package's version, from its package.json. */
export const VERSION = readPackageVersion(import.meta.url);

/** Any device of the pool, driven by the android adapter. */
export const androidDeviceTemplate: TemplateConfig = {
  id: 'android-device',
  provider: 'adb-pool',
  adapter: 'android',
  os: 'android',
  golden: 'adb-pool',
  description: 'An Android device or emulator from the adb pool (providers.adb-pool.devices), claimed for the lease and reset on release',
  ready_timeout_seconds: 120,
};

const adbPoolProvider = defineProvider<AdbPoolOptions>({
  id: 'adb-pool',
  version: VERSION,
  contractVersion: 2,
  options: AdbPoolOptionsSchema,
  templateOptions: AdbPoolTemplateOptionsSchema,
  templates: [androidDeviceTemplate],
  create: adbPoolMethods,
});

export default adbPoolProvider;

/** Factory: validates options and returns a Provider; no I/O until a method is called. */
export function createAdbPoolProvider(options: Partial<AdbPoolOptions> | undefined, context: ProviderContext) {
  return adbPoolProvider.create(options, context);
}

export { AdbPoolOptionsSchema, AdbPoolTemplateOptionsSchema, type AdbPoolOptions, type AdbPoolTemplateOptions, type DeviceConfig } from './options.ts';
export { Claims, type Claim } from './claims.ts';
