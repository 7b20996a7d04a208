/**
 * @vmhub/adapter-hyprland — drives a Wayland desktop, Hyprland or sway, through the lease's
 * GuestChannel only: grim for pixels, a kept virtual keyboard for keys, a small virtual-pointer client for the
 * pointer, wl-clipboard for paste, the compositor's IPC (Hyprland's socket, swaymsg) for windows.
 *
 *   import hyprland from '@vmhub/adapter-hyprland';        // the plugin (defineAdapter, contract 2)
 *   const adapter = createHyprlandAdapter({ compositor: 'auto' });
 *   const session = await adapter.open(lease);               // one per lease; core does this
 *   await session.type!(ctx, { text: 'héllo' });
 *   await session.dispose();
 */
import type { Adapter } from '@vmhub/core';
import { hyprlandAdapter } from './adapter.ts';
import type { HyprlandOptionsInput } from './options.ts';

export { ADAPTER_VERSION, HYPRLAND_CAPABILITIES } from './adapter.ts';
export type { HyprlandSession } from './runtime.ts';
export { HyprlandOptionsSchema, resolveOptions, type HyprlandOptions, type HyprlandOptionsInput } from './options.ts';
export { keyArgs, resolveKey, KEY_ALIASES, MODIFIERS } from './keys.ts';
export { dispatchRequest, syntaxFor, versionOf, luaString, type DispatchSyntax } from './hypr-ipc.ts';
export { makeLayout, toLogical, type Layout, type OutputGeom } from './layout.ts';
export { ATSPI_REASON } from './probe.ts';

/** Make an adapter instance. Does no I/O: `open(lease)` makes a lease's session. */
export function createHyprlandAdapter(options: HyprlandOptionsInput = {}): Adapter {
  return hyprlandAdapter.create(options);
}

export default hyprlandAdapter;
