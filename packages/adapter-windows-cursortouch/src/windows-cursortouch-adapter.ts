/**
 * The adapter definition: what it declares (capabilities, options, verbs) and, per instance, the
 * session factory. An instance holds only its validated options; everything per lease is built by
 * openWindowsSession when core opens the lease's session.
 */
import { defineAdapter, type Capability } from '@vmhub/core';
import { WindowsOptionsSchema, type WindowsOptions, type WindowsOptionsInput } from './options.ts';
import { ADAPTER_VERSION } from './version.ts';
import { openWindowsSession, type WindowsSession } from './windows-cursortouch-session.ts';
import { windowsVerbs } from './windows-cursortouch-verbs.ts';

export const WINDOWS_CAPABILITIES: readonly Capability[] = [
  'screenshot', 'inspect', 'list_windows', 'focus', 'close', 'launch',
  'click', 'type', 'key', 'paste', 'drag', 'scroll', 'dispatch',
  'put_file', 'get_file', 'clone_repo', 'exec',
];

export const windowsAdapter = defineAdapter<WindowsOptionsInput, WindowsSession>({
  id: 'windows-cursortouch',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  capabilities: WINDOWS_CAPABILITIES,
  options: WindowsOptionsSchema,
  verbs: windowsVerbs,
  create(options) {
    // defineAdapter validated the options and filled the defaults.
    const instance = options as WindowsOptions;
    return { open: (lease) => openWindowsSession(instance, lease, WINDOWS_CAPABILITIES) };
  },
});
