/**
 * The adapter definition: what it declares and, per instance, the session factory. An instance
 * holds only its validated options; everything per lease is built by openAndroidSession.
 */
import { defineAdapter, readPackageVersion, type Capability } from '@vmhub/core';
import { AndroidOptionsSchema, type AndroidOptions, type AndroidOptionsInput } from './options.ts';
import { openAndroidSession, type AndroidSession } from './android-session.ts';

export const ADAPTER_VERSION = readPackageVersion(import.meta.url);

export const ANDROID_CAPABILITIES: readonly Capability[] = [
  'screenshot', 'inspect', 'list_windows', 'focus', 'close', 'launch',
  'click', 'type', 'key', 'paste', 'drag', 'scroll',
  'put_file', 'get_file', 'clone_repo', 'exec',
];

export const androidAdapter = defineAdapter<AndroidOptionsInput, AndroidSession>({
  id: 'android',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  capabilities: ANDROID_CAPABILITIES,
  options: AndroidOptionsSchema,
  create(options) {
    // defineAdapter validated the options and filled the defaults.
    const instance = options as AndroidOptions;
    return { open: (lease) => openAndroidSession(instance, lease) };
  },
});
