/**
 * The adapter definition: what it declares (capabilities, options, verbs) and, per instance, the
 * session factory. One adapter, two compositors: Hyprland or sway, chosen per machine by probing
 * (desktop.ts).
 */
import { defineAdapter, readPackageVersion, type Capability } from '@vmhub/core';
import { HyprlandOptionsSchema, type HyprlandOptions, type HyprlandOptionsInput } from './options.ts';
import { openHyprlandSession, type HyprlandSession } from './hyprland-session.ts';
import { hyprlandVerbs } from './hyprland-verbs.ts';

/** This package's version, from its package.json. */
export const ADAPTER_VERSION = readPackageVersion(import.meta.url);

export const HYPRLAND_CAPABILITIES: readonly Capability[] = [
  'screenshot', 'inspect', 'list_windows', 'focus', 'close', 'launch',
  'click', 'type', 'key', 'paste', 'drag', 'scroll', 'dispatch',
  'put_file', 'get_file', 'clone_repo', 'exec',
];

export const hyprlandAdapter = defineAdapter<HyprlandOptionsInput, HyprlandSession>({
  id: 'hyprland',
  version: ADAPTER_VERSION,
  contractVersion: 2,
  capabilities: HYPRLAND_CAPABILITIES,
  options: HyprlandOptionsSchema,
  verbs: hyprlandVerbs,
  create(options) {
    // defineAdapter validated the options and filled defaults.
    const instance = options as HyprlandOptions;
    return { open: (lease) => openHyprlandSession(instance, lease) };
  },
});
