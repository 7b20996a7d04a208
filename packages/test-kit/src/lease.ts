/**
 * Contexts shaped as core hands them to an adapter, for adapter tests without a server: a
 * LeaseContext for `open()` and, per call, an AdapterContext (the same lease plus that call's
 * signal). Only types come from @vmhub/core, so the root entry stays free of it at run time.
 */
import { randomUUID } from 'node:crypto';
import type { AdapterContext, ConsoleHandle, GuestChannel, LeaseContext, MachineRef, TemplateConfig } from '@vmhub/core';

const lazy = <T>(v: T | (() => Promise<T>) | undefined, what: string): (() => Promise<T>) =>
  typeof v === 'function' ? (v as () => Promise<T>) : async () => { if (v === undefined) throw new Error(`no ${what} in tests`); return v; };

export interface TestLeaseParts extends Partial<Omit<LeaseContext, 'channel' | 'console' | 'template'>> {
  /** The template; `adapter` is required, the rest defaults to a host template (`<adapter>-host`). */
  template: Partial<TemplateConfig> & { adapter: string };
  /** The lease's channel (or how to open it); absent, channel() throws. */
  channel?: GuestChannel | (() => Promise<GuestChannel>);
  /** The lease's console (or how to open it); absent, console() throws. */
  console?: ConsoleHandle | (() => Promise<ConsoleHandle>);
}

/**
 * A lease as core hands it to `open()`: a fresh lease id (pass `lease_id` to play a second
 * session of the same lease), a host machine and template unless given, the channel and console
 * given, and no guest ports (connect/forward throw) unless given.
 */
export function testLease(parts: TestLeaseParts): LeaseContext {
  const { template, channel, console, ...rest } = parts;
  const machine: MachineRef = { identity: `vmhub-test-${template.adapter}`, external_id: 'host' };
  return {
    lease_id: `test-${randomUUID()}`,
    machine,
    connect: async () => { throw new Error('no guest ports in tests'); },
    forward: async () => { throw new Error('no guest ports in tests'); },
    ...rest,
    template: { id: `${template.adapter}-host`, provider: 'host', os: 'linux', golden: 'host', ...template },
    channel: lazy(channel, 'channel'),
    console: lazy(console, 'console'),
  };
}

/**
 * One call on `lease`. `limit` is the call's signal: a deadline in ms from now (default 60 s), or
 * an AbortSignal the test aborts itself (e.g. `AbortSignal.timeout(1000)` to cancel mid-way).
 */
export function callContext(lease: LeaseContext, limit: number | AbortSignal = 60_000): AdapterContext {
  return { ...lease, signal: typeof limit === 'number' ? AbortSignal.timeout(limit) : limit };
}
