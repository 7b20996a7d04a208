/**
 * connect(): a stream to a guest TCP port listed in the template's `forward_ports`, through the
 * host port QEMU forwards it from (user-mode hostfwd on 127.0.0.1, recorded at create). A port the
 * template does not forward is CAPABILITY_UNAVAILABLE naming the option; a refused one (nothing
 * listens in the guest yet: QEMU accepts, then drops) is CAPABILITY_UNAVAILABLE, retryable.
 */
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { VmhubError, type MachineRef } from '@vmhub/core';
import { requireLive, SOURCE, type QemuRuntime } from './qemu-runtime.ts';

export async function connectPort(rt: QemuRuntime, machine: MachineRef, port: number, signal?: AbortSignal): Promise<Duplex> {
  const { record } = await requireLive(rt, machine, 'connect');
  const host = record.forwards?.[port];
  if (!host) {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] guest port ${port} of ${machine.identity} is not forwarded: list it in the template's provider_options.forward_ports`, { source: SOURCE });
  }
  return new Promise<Duplex>((resolve, reject) => {
    const sock = netConnect({ host: '127.0.0.1', port: host });
    const fail = (why: string): void => {
      sock.destroy();
      reject(new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] guest port ${port} of ${machine.identity} (forwarded from 127.0.0.1:${host}) does not answer: ${why}`, { source: SOURCE, retryable: true }));
    };
    const onAbort = (): void => fail('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    sock.once('connect', () => { signal?.removeEventListener('abort', onAbort); resolve(sock); });
    sock.once('error', (err) => { signal?.removeEventListener('abort', onAbort); fail(err.message); });
  });
}
