/**
 * @vmhub/adapter-windows-cursortouch — drives a Windows guest through CursorTouch/Windows-MCP
 * running inside it: an MCP client (the official SDK, Streamable HTTP) reaching the guest's
 * Windows-MCP through `lease.forward(port)`, authenticated with the Bearer key named by
 * `auth_key_env`. Tools are chosen from the guest's own tools/list (both the early "-Tool" names
 * and the current ones).
 *
 *   import windows, { createWindowsAdapter } from '@vmhub/adapter-windows-cursortouch';
 *   const adapter = createWindowsAdapter({ auth_key_env: 'CURSORTOUCH_AUTH_KEY' });
 *   const session = await adapter.open(lease);    // one per lease; core does this in the server
 *   await session.type!(ctx, { text: 'héllo' });
 *   await session.dispose();                       // closes the MCP client
 */
import type { Adapter } from '@vmhub/core';
import type { WindowsOptionsInput } from './options.ts';
import { windowsAdapter } from './adapter.ts';

export { WINDOWS_CAPABILITIES } from './adapter.ts';
export { ADAPTER_VERSION } from './version.ts';
export type { WindowsSession } from './runtime.ts';
export { WindowsOptionsSchema, resolveOptions, type WindowsOptions, type WindowsOptionsInput } from './options.ts';
export { parseScreenText, desktopSize, type ScreenText } from './screen-text.ts';
export { parseWindows } from './windows-text.ts';
export { parseTree } from './tree-text.ts';
export { parseChords } from './keys.ts';
export { windowsPath } from './guest-paths.ts';
export { ALIASES, ToolMap, type ListedTool, type Role } from './tool-map.ts';

/** Make an adapter instance. Does no I/O: `open(lease)` makes a lease's session, which connects on first use. */
export function createWindowsAdapter(options: WindowsOptionsInput = {}): Adapter {
  return windowsAdapter.create(options);
}

export default windowsAdapter;
