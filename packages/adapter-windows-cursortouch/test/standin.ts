/**
 * The stand-in Windows-MCP (standins/windows-mcp) started in-process, and a lease whose
 * `forward()` / `connect()` reach it the way core's lease session does: core's GuestPorts over a
 * TCP connection to the stand-in's port (standing for the guest's port 8000). The auth key is put
 * in a per-lease env var, as the operator would on the vmhub host.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { GuestPorts, VmhubError, type AdapterContext, type LeaseContext } from '@vmhub/core';
import { startStandin } from '@vmhub/windows-mcp-standin';

export type Standin = Awaited<ReturnType<typeof startStandin>>;

export interface StandinLease {
  lease: LeaseContext;
  ports: GuestPorts;
  /** The env var holding this lease's key on the "vmhub host". */
  keyEnv: string;
  close(): Promise<void>;
}

/** A lease on `standin`; `key` goes into a fresh env var (undefined: the var is unset). */
export function standinLease(standin: Standin, key: string | undefined, adapterOptions: Record<string, unknown> = {}, secrets: Record<string, string> = {}): StandinLease {
  const keyEnv = `VMHUB_TEST_WINDOWS_KEY_${randomBytes(4).toString('hex').toUpperCase()}`;
  if (key !== undefined) process.env[keyEnv] = key;
  const guestPort = (adapterOptions.port as number | undefined) ?? 8000;
  const ports = new GuestPorts(async (port) => {
    if (port !== guestPort) throw new VmhubError('CAPABILITY_UNAVAILABLE', `nothing listens on guest port ${port}`);
    const socket = connect(standin.port, '127.0.0.1');
    await once(socket, 'connect');
    return socket;
  });
  const lease: LeaseContext = {
    lease_id: `test-${randomUUID()}`,
    machine: { identity: 'vmhub-test-windows', external_id: 'standin' },
    template: { id: 'windows-standin', provider: 'test', adapter: 'windows-cursortouch', os: 'windows', golden: 'standin', adapter_options: { auth_key_env: keyEnv, ...adapterOptions } },
    channel: async () => { throw new VmhubError('CAPABILITY_UNAVAILABLE', 'a Windows lease has no GuestChannel'); },
    console: async () => { throw new VmhubError('CAPABILITY_UNAVAILABLE', 'no console in tests'); },
    connect: (port) => ports.connect(port),
    forward: (port) => ports.forward(port),
    // The provider's per-lease secrets (docker: provider_options.lease_secrets).
    secret: async (name) => secrets[name],
  };
  return { lease, ports, keyEnv, close: async () => { delete process.env[keyEnv]; await ports.close(); } };
}

export function callCtx(lease: LeaseContext, limit: number | AbortSignal = 30_000): AdapterContext {
  return { ...lease, signal: typeof limit === 'number' ? AbortSignal.timeout(limit) : limit };
}
