/**
 * @vmhub/adapter-macos — drives a macOS machine: screen and input over RFB (the guest's Screen
 * Sharing through the provider's guest ports, or the hypervisor's VNC console), which works
 * before login and needs no privacy (TCC) grant in the guest; exec, files and clone over SSH
 * (ssh2, the lease's key). When a template enables them, screencapture, cliclick and osascript
 * over SSH are a second path (window list/focus/close; screen and input with vnc: "none").
 *
 *   import macos, { createMacosAdapter } from '@vmhub/adapter-macos';
 *   const adapter = createMacosAdapter({ ssh_user: 'admin', ssh_key_env: 'MAC_KEY' });
 *   const session = await adapter.open(lease);   // one per lease; the server does this
 *   await session.type!(ctx, { text: 'héllo\n' });
 *   await session.dispose();
 */
import type { Adapter } from '@vmhub/core';
import { macosAdapter } from './adapter.ts';
import type { MacosOptionsInput } from './options.ts';

export { ADAPTER_VERSION, MACOS_CAPABILITIES } from './adapter.ts';
export type { MacosSession } from './adapter.ts';
export { MacosOptionsSchema, resolveOptions, type MacosOptions, type MacosOptionsInput } from './options.ts';
export { parseChords, charKeysym, COMMAND_KEYSYMS, type KeyRef } from './keys.ts';
export { quote, remoteCommand } from './ssh-exec.ts';

/** Make an adapter instance. Does no I/O: connections open per lease, on first use. */
export function createMacosAdapter(options: MacosOptionsInput = {}): Adapter {
  return macosAdapter.create(options);
}

export default macosAdapter;
