/**
 * @vmhub/adapter-console — drive any guest at the hypervisor, with nothing installed inside:
 * screenshots via the provider's console (QMP screendump), a US keyboard and an absolute pointer
 * via QMP input-send-event, and files/exec/clone through the provider's GuestChannel (the QEMU
 * guest agent) where the template has one. Works in boot menus, installers and broken guests.
 */
import { consoleAdapter } from './adapter.ts';

export default consoleAdapter;
export { VERSION } from './adapter.ts';
export { openConsoleSession } from './adapter.ts';
export type { ConsoleSession } from './runtime.ts';
export { ConsoleAdapterOptionsSchema, type ConsoleAdapterOptions } from './options.ts';
