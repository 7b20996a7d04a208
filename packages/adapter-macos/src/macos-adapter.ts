/**
 * The adapter definition: what it declares and, per instance, the session factory. An instance
 * holds only its validated options; everything per lease is built by openMacosSession.
 */
import { defineAdapter, readPackageVersion, type Capability } from '@vmhub/core';
import { MacosOptionsSchema, resolveOptions, type MacosOptionsInput } from './options.ts';
import { openMacosSession, type MacosSession } from './macos-session.ts';

/** This package's version, from its package.json. */
export const ADAPTER_VERSION = readPackageVersion(import.meta.url);

export const MACOS_CAPABILITIES: readonly Capability[] = [
  'screenshot', 'list_windows', 'focus', 'close', 'launch',
  'click', 'type', 'key', 'drag', 'scroll',
  'put_file', 'get_file', 'clone_repo', 'exec',
];

export const macosAdapter = defineAdapter<MacosOptionsInput, MacosSession>({
  id: 'macos',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  capabilities: MACOS_CAPABILITIES,
  options: MacosOptionsSchema,
  create(options) {
    // defineAdapter validated the schema; resolveOptions adds the cross-field rules.
    const instance = resolveOptions(options);
    return { open: (lease) => openMacosSession(instance, lease) };
  },
});
