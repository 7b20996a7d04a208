/**
 * @vmhub/adapter-console — drive any guest at the hypervisor, with nothing installed inside:
 * screenshots via the provider's console (QMP screendump), a US keyboard and an absolute pointer
 * via QMP input-send-event, and files/exec/clone through the provider's GuestChannel (the QEMU
 * guest agent) where the template has one. Works in boot menus, installers and broken guests.
 */
import { CONTRACT_VERSION, defineAdapter, type AdapterMethods } from '@vmhub/core';
import { createConsoleAdapterMethods } from './console-adapter.ts';
import { ConsoleAdapterOptionsSchema, type ConsoleAdapterOptions } from './options.ts';

export const VERSION = '0.1.0';

/** The adapter's methods without defineAdapter's wrapping; does no I/O. */
export function createConsoleAdapter(options: ConsoleAdapterOptions = {}): AdapterMethods {
  return createConsoleAdapterMethods(options);
}

const consoleAdapter = defineAdapter<ConsoleAdapterOptions>({
  id: 'console',
  version: VERSION,
  contractVersion: CONTRACT_VERSION,
  // No inspect/list_windows/focus/close/launch/paste/dispatch: the router answers CAPABILITY_UNAVAILABLE.
  capabilities: ['screenshot', 'click', 'type', 'key', 'drag', 'scroll', 'put_file', 'get_file', 'clone_repo', 'exec'],
  options: ConsoleAdapterOptionsSchema,
  create: (options) => createConsoleAdapterMethods(options),
});

export default consoleAdapter;
export { ConsoleAdapterOptionsSchema, type ConsoleAdapterOptions } from './options.ts';
