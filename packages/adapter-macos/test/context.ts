/**
 * Lease contexts for the tests, shaped as core hands them to the adapter: guest ports mapped to
 * host loopback ports (22 → the test sshd, 5900 → x11vnc or the ARD stand-in) through core's
 * GuestPorts, a template carrying the adapter_options, and per-call contexts with a signal.
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { GuestPorts, type AdapterContext, type ConsoleHandle, type LeaseContext } from '@vmhub/core';

export interface TestLease extends LeaseContext {
  ports: GuestPorts;
  close(): Promise<void>;
}

export function leaseContext(portMap: Record<number, number>, adapterOptions: Record<string, unknown>, consoleHandle?: () => Promise<ConsoleHandle>): TestLease {
  const ports = new GuestPorts(async (port) => {
    const host = portMap[port];
    if (!host) throw new Error(`no guest port ${port} in this test`);
    const sock = connect(host, '127.0.0.1');
    await new Promise<void>((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
    return sock;
  });
  return {
    lease_id: `test-${randomUUID()}`,
    machine: { identity: 'vmhub-test-macos', external_id: 'host' },
    template: { id: 'macos-host', provider: 'host', adapter: 'macos', os: 'macos', golden: 'host', adapter_options: adapterOptions },
    channel: async () => { throw new Error('the macOS adapter must not use the provider channel'); },
    console: consoleHandle ?? (async () => { throw new Error('no console in this test'); }),
    connect: (port) => ports.connect(port),
    forward: (port) => ports.forward(port),
    ports,
    close: () => ports.close(),
  };
}

export function callContext(lease: LeaseContext, limit: number | AbortSignal = 60_000): AdapterContext {
  return { ...lease, signal: typeof limit === 'number' ? AbortSignal.timeout(limit) : limit };
}
