/**
 * Inspect: the AT-SPI accessibility tree through the adapter kit's bounded walk (atspi.ts there:
 * focused window or desktop, node and time budgets, never a hang) — the golden needs at-spi2-core,
 * python3-pyatspi and apps with accessibility on (GTK does it by default; Firefox when the bus is
 * up; Qt needs QT_ACCESSIBILITY=1). Without that stack the capability answers
 * CAPABILITY_UNAVAILABLE with the reason, and probe() reports the same.
 */
import type { AdapterContext, InspectRequest, InspectResult } from '@vmhub/core';
import { walkAtspi } from '@vmhub/core/adapter-kit';
import { x11Error } from './errors.ts';
import type { X11Runtime } from './runtime.ts';
import { ATSPI_REASON, probeFacts } from './probe.ts';

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
    return await walkAtspi(guest, input);
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
