/**
 * Contexts for tests, shaped as core hands them to an adapter: a LeaseContext for `open()` (a
 * fixed channel, a lease id, the template's adapter_options) and, per call, an AdapterContext —
 * the same lease plus that call's signal.
 */
import { randomUUID } from 'node:crypto';
import { resolveGuestPath, type Adapter, type AdapterContext, type GuestChannel, type LeaseContext, type OpenSession } from '@vmhub/core';

/** One lease on `channel`. Pass `leaseId` to play a second session of the same lease. */
export function leaseContext(channel: GuestChannel, adapterOptions: Record<string, unknown> = {}, leaseId = `test-${randomUUID()}`): LeaseContext {
  return {
    lease_id: leaseId,
    machine: { identity: 'vmhub-test-x11', external_id: 'host' },
    template: { id: 'x11-host', provider: 'host', adapter: 'x11', os: 'linux', golden: 'host', adapter_options: adapterOptions },
    channel: async () => channel,
    console: async () => { throw new Error('no console in tests'); },
    connect: async () => { throw new Error('no guest ports in tests'); },
    forward: async () => { throw new Error('no guest ports in tests'); },
  };
}

/**
 * One call on `lease`. `limit` is the call's signal: a deadline in ms from now (default 60 s), or
 * an AbortSignal the test aborts itself (e.g. `AbortSignal.timeout(1000)` to cancel mid-way).
 */
export function callContext(lease: LeaseContext, limit: number | AbortSignal = 60_000): AdapterContext {
  return { ...lease, signal: typeof limit === 'number' ? AbortSignal.timeout(limit) : limit };
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
