/**
 * Contexts for tests, shaped as core hands them to an adapter: a LeaseContext for `open()` and,
 * per call, an AdapterContext — the same lease plus that call's signal.
 */
import { randomUUID } from 'node:crypto';
import type { AdapterContext, GuestChannel, LeaseContext } from '@vmhub/core';

export function leaseContext(channel: GuestChannel, adapterOptions: Record<string, unknown> = {}): LeaseContext {
  return {
    lease_id: `test-${randomUUID()}`,
    machine: { identity: 'vmhub-test-hyprland', external_id: 'host' },
    template: { id: 'wayland-host', provider: 'host', adapter: 'hyprland', os: 'linux', golden: 'host', adapter_options: adapterOptions },
    channel: async () => channel,
    console: async () => { throw new Error('no console in tests'); },
    connect: async () => { throw new Error('no guest ports in tests'); },
    forward: async () => { throw new Error('no guest ports in tests'); },
  };
}

export function callContext(lease: LeaseContext, limit: number | AbortSignal = 60_000): AdapterContext {
  return { ...lease, signal: typeof limit === 'number' ? AbortSignal.timeout(limit) : limit };
}
