/**
 * The adapter definition: what it declares (capabilities, options, verbs) and, per instance, the
 * session factory. An instance holds only its validated options; everything per lease is built
 * by openX11Session when core opens the lease's session.
 */
import { defineAdapter, readPackageVersion, type Capability } from '@vmhub/core';
import { completeOptions, X11OptionsSchema, type X11OptionsInput } from './options.ts';
import { openX11Session, type X11Session } from './x11-session.ts';
import { x11Verbs } from './x11-verbs.ts';

/** This package's version, from its package.json. */
export const ADAPTER_VERSION = readPackageVersion(import.meta.url);

export const X11_CAPABILITIES: readonly Capability[] = [
  'screenshot', 'inspect', 'list_windows', 'focus', 'close', 'launch',
  'click', 'type', 'key', 'paste', 'drag', 'scroll', 'dispatch',
  'put_file', 'get_file', 'clone_repo', 'exec',
];

export const x11Adapter = defineAdapter<X11OptionsInput, X11Session>({
  id: 'x11',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  capabilities: X11_CAPABILITIES,
  options: X11OptionsSchema,
  verbs: x11Verbs,
  create(options) {
    // defineAdapter validated the options and filled defaults; the env fallback is read once here.
    const instance = completeOptions(options as Parameters<typeof completeOptions>[0]);
    return { open: (lease) => openX11Session(instance, lease) };
  },
});
