/**
 * @vmhub/provider-qemu — local QEMU as a vmhub provider: KVM where usable, TCG otherwise; a qcow2
 * overlay per lease (or direct kernel boot), a per-lease state directory that carries the
 * machine's identity, QMP for readiness and teardown, a QMP console per lease session, and the
 * QEMU guest agent as a GuestChannel when a template enables it. Also builds the offline
 * `tiny-console` test goldens (offered to `vmhub-server golden …` through `goldens()`).
 */
import { defineProvider, readPackageVersion, type ProviderContext, type ProviderMethods } from '@vmhub/core';
import { QemuProviderOptionsSchema, QemuTemplateOptionsSchema, type QemuProviderOptions } from './options.ts';
import { qemuGoldens } from './qemu-golden.ts';
import { createQemuProviderMethods } from './qemu-provider.ts';
import { tinyConsoleAgentTemplate, tinyConsoleTemplate } from './tiny-console.ts';

/** This package's version, from its package.json. */
export const VERSION = readPackageVersion(import.meta.url);

/** The provider's methods without defineProvider's wrapping; does no I/O. */
export function createQemuProvider(options: Partial<QemuProviderOptions> = {}, context: ProviderContext): ProviderMethods {
  return createQemuProviderMethods(options, context);
}

const qemuProvider = defineProvider<QemuProviderOptions>({
  id: 'qemu',
  version: VERSION,
  contractVersion: 2,
  options: QemuProviderOptionsSchema,
  templateOptions: QemuTemplateOptionsSchema,
  templates: [tinyConsoleTemplate(), tinyConsoleAgentTemplate()],
  goldens: () => qemuGoldens(),
  create: (options, context) => createQemuProviderMethods(options, context),
});

export default qemuProvider;
export { QemuProviderOptionsSchema, QemuTemplateOptionsSchema, type QemuProviderOptions, type QemuTemplateOptions } from './options.ts';
export { buildGolden, buildTinyConsoleGolden, goldenStatus, qemuGoldens, type GoldenBuildOptions, type GoldenBuildResult, type GoldenStatus } from './qemu-golden.ts';
export { tinyConsoleTemplate, tinyConsoleAgentTemplate, tinyConsoleSshTemplate, buildHint, GOLDEN_NAMES, TINY_CONSOLE_READY_MARKER, type GoldenName } from './tiny-console.ts';
export { QmpClient, QmpError } from './qmp-client.ts';
export { defaultStateDir, defaultGoldenDir } from './paths.ts';
export { kvmUsable } from './accel.ts';
