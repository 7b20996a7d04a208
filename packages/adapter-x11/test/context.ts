/** An AdapterContext for tests: a fixed channel, a fresh lease id, a bounded signal. */
import { randomUUID } from 'node:crypto';
import type { AdapterContext, GuestChannel } from '@vmhub/core';

export function testContext(channel: GuestChannel, adapterOptions: Record<string, unknown> = {}, timeoutMs = 60_000): AdapterContext {
  return {
    lease_id: `test-${randomUUID()}`,
    machine: { identity: 'vmhub-test-x11', external_id: 'host' },
    template: { id: 'x11-host', provider: 'host', adapter: 'x11', os: 'linux', golden: 'host', adapter_options: adapterOptions },
    channel: async () => channel,
    console: async () => { throw new Error('no console in tests'); },
    signal: AbortSignal.timeout(timeoutMs),
  };
}
