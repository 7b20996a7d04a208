/**
 * Contexts for tests, shaped as core hands them to an adapter: a LeaseContext for `open()` and,
 * per call, an AdapterContext — the same lease plus that call's signal.
 */
import type { GuestChannel, LeaseContext } from '@vmhub/core';
import { callContext, testLease } from '@vmhub/test-kit';

export { callContext };

/** `extra`: more of the lease (e.g. the framebuffer() a provider would share). */
export function leaseContext(channel: GuestChannel, adapterOptions: Record<string, unknown> = {}, extra: Partial<LeaseContext> = {}): LeaseContext {
  return testLease({ channel, template: { id: 'wayland-host', adapter: 'hyprland', adapter_options: adapterOptions }, ...extra });
}
