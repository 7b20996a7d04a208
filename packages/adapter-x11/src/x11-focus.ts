/**
 * Focus: resolve the window, ask the WM to activate it (wmctrl -ia: switch desktop, raise, focus,
 * as EWMH _NET_ACTIVE_WINDOW), and wait in the guest until the WM reports it active. The returned
 * window says `focused: false` when the WM refused.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';
import { ACTIVE_ID_SH, listWindowsWith, publicWindow, resolveWindow } from './x11-list-windows.ts';

// A window mapped a moment ago may ignore the first request (the WM has not managed it yet), so
// the request is repeated every 200 ms until _NET_ACTIVE_WINDOW names it, for up to 1.5 s.
const FOCUS_SCRIPT = String.raw`
want=$(printf '%d' "$1")
i=0
while [ "$i" -lt 75 ]; do
  if [ $((i % 10)) -eq 0 ]; then wmctrl -ia "$1" || exit 74; fi
  ${ACTIVE_ID_SH}
  if [ -n "$active_id" ] && [ "$(printf '%d' "$active_id")" = "$want" ]; then exit 0; fi
  i=$((i+1)); sleep 0.02
done
exit 0
`;

export async function focus(rt: X11Runtime, ctx: AdapterContext, input: { window: string }): Promise<WindowInfo> {
  const guest = await rt.guest(ctx);
  const target = resolveWindow(await listWindowsWith(guest), input.window);
  await guest.sh(FOCUS_SCRIPT, [target.id], { needs: ['wmctrl', 'xprop', 'sed'] });
  const after = (await listWindowsWith(guest)).find((w) => w.id === target.id);
  return publicWindow(after ?? target);
}
