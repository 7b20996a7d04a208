/** An AdapterContext for tests: a fixed channel, a fresh lease id, a bounded signal. */
import { randomUUID } from 'node:crypto';
import type { AdapterContext, GuestChannel } from '@vmhub/core';

/**
 * `limit` is the calls' signal: a deadline in ms from now (default 60 s), or an AbortSignal the
 * test aborts itself (e.g. `AbortSignal.timeout(1000)` to cancel a call mid-way).
 */
export function testContext(channel: GuestChannel, adapterOptions: Record<string, unknown> = {}, limit: number | AbortSignal = 60_000): AdapterContext {
  return {
    lease_id: `test-${randomUUID()}`,
    machine: { identity: 'vmhub-test-x11', external_id: 'host' },
    template: { id: 'x11-host', provider: 'host', adapter: 'x11', os: 'linux', golden: 'host', adapter_options: adapterOptions },
    channel: async () => channel,
    console: async () => { throw new Error('no console in tests'); },
    signal: typeof limit === 'number' ? AbortSignal.timeout(limit) : limit,
  };
}

/** The same lease (same lease id, channel, template) with another call's signal. */
export function withSignal(ctx: AdapterContext, signal: AbortSignal): AdapterContext {
  return { ...ctx, signal };
}
