/**
 * Contexts for tests, shaped as core hands them to an adapter: a LeaseContext for `open()` (a
 * fixed channel, a lease id, the template's adapter_options) and, per call, an AdapterContext —
 * the same lease plus that call's signal.
 */
import { resolveGuestPath, type Adapter, type AdapterContext, type GuestChannel, type LeaseContext, type OpenSession } from '@vmhub/core';
import { callContext, testLease } from '@vmhub/test-kit';

export { callContext };

/** One lease on `channel`. Pass `leaseId` to play a second session of the same lease. */
export function leaseContext(channel: GuestChannel, adapterOptions: Record<string, unknown> = {}, leaseId?: string): LeaseContext {
  return testLease({ channel, template: { id: 'x11-host', adapter: 'x11', adapter_options: adapterOptions }, ...(leaseId ? { lease_id: leaseId } : {}) });
}

/** The same lease (same lease id, channel, template) with another call's signal. */
export function withSignal(ctx: AdapterContext, signal: AbortSignal): AdapterContext {
  return { ...ctx, signal };
}

export interface TestLease {
  lease: LeaseContext;
  session: OpenSession;
  /** A context for calls, bounded by `limit` (see callContext). */
  ctx: AdapterContext;
}

/** Open a session of `adapter` on a fresh lease over `channel`, as the server does on first use. */
export async function openLease(adapter: Adapter, channel: GuestChannel, adapterOptions: Record<string, unknown> = {}, limit: number | AbortSignal = 60_000): Promise<TestLease> {
  const lease = leaseContext(channel, adapterOptions);
  return { lease, session: await adapter.open(lease), ctx: callContext(lease, limit) };
}

/**
 * A guest path as core's router hands it to the adapter: resolved against the channel's home,
 * normalised, traversal refused (INVALID_REQUEST). The adapter no longer resolves paths itself.
 */
export function guestPath(channel: GuestChannel, path: string, field = 'path'): string {
  return resolveGuestPath(path, channel.home ?? '/root', field);
}
