/**
 * Inspect: the AT-SPI accessibility tree through the adapter kit's bounded walk (atspi.ts there:
 * focused window or desktop, node and time budgets, never a hang; the approach of adapter-x11).
 * On Wayland the bus is found through the session D-Bus ($XDG_RUNTIME_DIR/bus), not an X root
 * property, and extents are not global — Wayland clients do not know where their window is — so
 * elements carry bounds only as the toolkit reports them (often window-relative): a ref's point
 * (vm_click {ref}) is only as right as those bounds. Without that stack: CAPABILITY_UNAVAILABLE
 * with the reason probe() reports.
 */
import type { AdapterContext, InspectRequest, InspectResult } from '@vmhub/core';
import { walkAtspi, type ActiveWindowHint } from '@vmhub/core/adapter-kit';
import { hyprError } from './errors.ts';
import type { HyprRuntime } from './runtime.ts';
import { ATSPI_REASON, probeFacts } from './probe.ts';
import { readWindows } from './hyprland-list-windows.ts';

export async function inspect(rt: HyprRuntime, ctx: AdapterContext, input: InspectRequest): Promise<InspectResult> {
  const facts = await probeFacts(rt, ctx);
  if (!facts.atspi || !facts.bus) {
    throw hyprError('CAPABILITY_UNAVAILABLE', `inspect is unavailable: ${ATSPI_REASON}`, {
      hint: 'Use vm_screenshot to see the screen; the operator can add at-spi2-core, python3-pyatspi and a session D-Bus to the golden image.',
      details: { reason: ATSPI_REASON },
    });
  }
  // The walk of the focused window starts at the one the compositor has focused.
  return walkAtspi(await rt.guest(ctx), input, input.scope === 'window' ? await focusedWindow(rt, ctx) : undefined);
}

/** The compositor's focused window (its pid and title); undefined when none is, or it cannot be read. */
async function focusedWindow(rt: HyprRuntime, ctx: AdapterContext): Promise<ActiveWindowHint | undefined> {
  const w = (await readWindows(rt, ctx).catch(() => [])).find((x) => x.focused);
  return w?.title ? { title: w.title, ...(w.pid ? { pid: w.pid } : {}) } : undefined;
}
