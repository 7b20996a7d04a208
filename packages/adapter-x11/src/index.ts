/**
 * @vmhub/adapter-x11 — drives an X11 desktop (Xvfb + an EWMH window manager) through the
 * lease's GuestChannel only: xdotool for input, xwd for pixels, wmctrl/xprop/xwininfo for windows,
 * xclip for paste, python3-pyatspi for the accessibility tree when the golden has it. It never
 * learns whether the channel is docker exec, SSH or a guest agent.
 *
 *   import x11 from '@vmhub/adapter-x11';            // the plugin (defineAdapter, contract 2)
 *   const adapter = createX11Adapter({ display: ':0' });
 *   const session = await adapter.open(lease);       // one per lease; core does this in the server
 *   await session.type!(ctx, { text: 'héllo' });
 *   await session.dispose();
 */
import type { Adapter } from '@vmhub/core';
import { x11Adapter } from './adapter.ts';
import type { X11OptionsInput } from './options.ts';

export { ADAPTER_VERSION, X11_CAPABILITIES } from './adapter.ts';
export type { X11Session } from './runtime.ts';
export { X11OptionsSchema, resolveOptions, type X11Options, type X11OptionsInput } from './options.ts';
export { parseKeys, resolveKey, KEY_ALIASES } from './keys.ts';
export { xwdToRgb, parseXwdHeader, type XwdHeader } from './xwd.ts';
export { ATSPI_REASON } from './probe.ts';

/** Make an adapter instance. Does no I/O: `open(lease)` makes a lease's session, which reaches the guest per call. */
export function createX11Adapter(options: X11OptionsInput = {}): Adapter {
  return x11Adapter.create(options);
}

export default x11Adapter;
