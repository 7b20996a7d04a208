/**
 * Inspect: the AT-SPI accessibility tree through the adapter kit's bounded walk (atspi.ts there:
 * focused window or desktop, node and time budgets, never a hang) — the golden needs at-spi2-core,
 * python3-pyatspi and apps with accessibility on (GTK does it by default; Firefox when the bus is
 * up; Qt needs QT_ACCESSIBILITY=1). Without that stack the capability answers
 * CAPABILITY_UNAVAILABLE with the reason, and probe() reports the same.
 */
import type { AdapterContext, InspectRequest, InspectResult } from '@vmhub/core';
import { walkAtspi, type ActiveWindowHint } from '@vmhub/core/adapter-kit';
import { x11Error } from './errors.ts';
import type { Guest } from './guest.ts';
import type { X11Runtime } from './runtime.ts';
import { ATSPI_REASON, probeFacts } from './probe.ts';
import { ACTIVE_ID_SH, windowProps } from './x11-list-windows.ts';

// The WM's active window: its pid and title, one guest command.
const ACTIVE_SCRIPT = String.raw`
${ACTIVE_ID_SH}
case "$active_id" in ''|0x0) exit 0 ;; esac
xprop -id "$active_id" -notype _NET_WM_PID _NET_WM_NAME WM_NAME 2>/dev/null
exit 0
`;

/** The window the WM has active, for the walk of scope `window`; undefined when none is (or it cannot be read). */
export async function activeWindow(guest: Guest): Promise<ActiveWindowHint | undefined> {
  const res = await guest.sh(ACTIVE_SCRIPT, [], { needs: ['xprop', 'sed'] }).catch(() => undefined);
  const { title, pid } = windowProps(res?.stdout.toString('utf8') ?? '');
  return title ? { title, ...(pid ? { pid } : {}) } : undefined;
}

export async function inspect(rt: X11Runtime, ctx: AdapterContext, input: InspectRequest): Promise<InspectResult> {
  const facts = await probeFacts(rt, ctx);
  if (!facts.atspi) {
    throw x11Error('CAPABILITY_UNAVAILABLE', `inspect is unavailable: ${ATSPI_REASON}`, {
      hint: 'Use vm_screenshot to see the screen; the operator can add at-spi2-core and python3-pyatspi to the golden image.',
      details: { reason: ATSPI_REASON },
    });
  }
  const guest = await rt.guest(ctx);
  try {
    // The walk of the focused window starts at the one the WM has active (AT-SPI's own "active"
    // state can lag behind it, or sit on a helper window off the screen).
    return await walkAtspi(guest, input, input.scope === 'window' ? await activeWindow(guest) : undefined);
  } catch (err) {
    if (err instanceof Error && /connect to accessibility bus/i.test(err.message)) {
      throw x11Error('CAPABILITY_UNAVAILABLE', `inspect is unavailable now: no accessibility bus runs on ${rt.options.display} (at-spi-bus-launcher starts with the first accessible app): open a GTK app, or start at-spi-bus-launcher in the session`, {
        hint: 'Use vm_screenshot for now; the tree appears once an accessible app runs.',
        cause: err,
      });
    }
    throw err;
  }
}
