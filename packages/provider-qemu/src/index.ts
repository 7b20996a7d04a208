/**
 * @vmhub/provider-qemu — local QEMU as a vmhub provider: KVM where usable, TCG otherwise; a qcow2
 * overlay per lease (or direct kernel boot), a per-lease state directory that carries the
 * machine's identity, QMP for readiness, the console and teardown, and the QEMU guest agent as a
 * GuestChannel when a template enables it. Also builds the offline `tiny-console` test golden.
 */
import { CONTRACT_VERSION, defineProvider, type ProviderContext, type ProviderMethods } from '@vmhub/core';
import { QemuProviderOptionsSchema, type QemuProviderOptions } from './options.ts';
import { createQemuProviderMethods } from './qemu-provider.ts';
import { tinyConsoleAgentTemplate, tinyConsoleTemplate } from './tiny-console.ts';

export const VERSION = '0.1.0';

/** The provider's methods without defineProvider's wrapping; does no I/O. */
export function createQemuProvider(options: Partial<QemuProviderOptions> = {}, context: ProviderContext): ProviderMethods {
  return createQemuProviderMethods(options, context);
}

const qemuProvider = defineProvider<QemuProviderOptions>({
  id: 'qemu',
  version: VERSION,
  contractVersion: CONTRACT_VERSION,
  options: QemuProviderOptionsSchema,
  templates: [tinyConsoleTemplate(), tinyConsoleAgentTemplate()],
  create: (options, context) => createQemuProviderMethods(options, context),
});

export default qemuProvider;
export { QemuProviderOptionsSchema, type QemuProviderOptions, type QemuTemplateOptions } from './options.ts';
export { buildGolden, buildTinyConsoleGolden, goldenStatus, type GoldenBuildOptions, type GoldenStatus } from './tiny-console-golden.ts';
export { tinyConsoleTemplate, tinyConsoleAgentTemplate, buildHint, GOLDEN_NAMES, TINY_CONSOLE_READY_MARKER, type GoldenName } from './tiny-console.ts';
export { QmpClient, QmpError } from './qmp-client.ts';
export { defaultStateDir, defaultGoldenDir } from './paths.ts';
export { kvmUsable } from './accel.ts';
