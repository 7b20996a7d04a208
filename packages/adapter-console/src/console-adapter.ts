/**
 * The console adapter: hypervisor-level screen, keyboard and pointer through the provider's
 * ConsoleHandle (QMP), plus files/exec/clone through the GuestChannel when the template has one.
 * One file per capability; console-session.ts wires them into the per-lease session.
 */
import { defineAdapter, readPackageVersion } from '@vmhub/core';
import { openConsoleSession, type ConsoleSession } from './console-session.ts';
import { ConsoleAdapterOptionsSchema, type ConsoleAdapterOptions } from './options.ts';

/** This package's version, from its package.json. */
export const VERSION = readPackageVersion(import.meta.url);

export const consoleAdapter = defineAdapter<ConsoleAdapterOptions, ConsoleSession>({
  id: 'console',
  version: VERSION,
  contractVersion: 2,
  // No inspect/list_windows/focus/close/launch/paste/dispatch: the router answers CAPABILITY_UNAVAILABLE.
  capabilities: ['screenshot', 'click', 'type', 'key', 'drag', 'scroll', 'put_file', 'get_file', 'clone_repo', 'exec'],
  options: ConsoleAdapterOptionsSchema,
  create: (options) => ({ open: (lease) => openConsoleSession(options, lease) }),
});
