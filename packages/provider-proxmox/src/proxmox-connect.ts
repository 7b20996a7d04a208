/**
 * connect(): a byte stream to a TCP port of a Proxmox VM — the agent-reported address (or the
 * template's address_override host) on that port, through the template's SSH jump host when it
 * names one (the same path SSH takes). For services in the guest other than sshd: adbd on an
 * Android-x86 VM, Windows-MCP, Screen Sharing. A refused or unreachable port is a retryable
 * CAPABILITY_UNAVAILABLE naming it.
 */
import { readFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { Client as SshClient } from 'ssh2';
import { VmhubError, type MachineRef, type TemplateConfig } from '@vmhub/core';
import { resolveAddress } from './vm-address.ts';
import { SOURCE } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { templateOptions } from './template-options.ts';

const unreachable = (what: string, why: string) =>
  new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${what} does not answer: ${why}`, { source: SOURCE, retryable: true, hint: 'The service in the VM is not listening (yet), or a firewall is in the way: wait for the lease to be ready, or check the golden starts it.' });

export async function connectPort(rt: Runtime, machine: MachineRef, port: number, template: TemplateConfig, signal?: AbortSignal): Promise<Duplex> {
  const vm = rt.vm(machine);
  const address = await resolveAddress(template, vm, signal);
  if (!address) throw new VmhubError('LEASE_NOT_READY', `[vmhub] [${SOURCE}] VM ${vm.vmid} has no usable IPv4 address yet (guest agent network-get-interfaces)`, { source: SOURCE });
  const what = `port ${port} of VM ${vm.vmid} (${address.host})`;
  const jump = templateOptions(template).ssh_jump;
  if (jump) return viaJump(jump, address.host, port, what);
  return new Promise<Duplex>((resolve, reject) => {
    const sock = netConnect({ host: address.host, port, timeout: 10_000 });
    const onAbort = (): void => { sock.destroy(); reject(unreachable(what, 'cancelled')); };
    signal?.addEventListener('abort', onAbort, { once: true });
    sock.once('connect', () => { signal?.removeEventListener('abort', onAbort); sock.setTimeout(0); resolve(sock); });
    sock.once('timeout', () => sock.destroy(new Error('no answer within 10 s')));
    sock.once('error', (err) => { signal?.removeEventListener('abort', onAbort); reject(unreachable(what, err.message)); });
  });
}

async function viaJump(jump: { host: string; port: number; user: string; private_key_path: string }, host: string, port: number, what: string): Promise<Duplex> {
  const client = new SshClient();
  await new Promise<void>((resolve, reject) => {
    client.once('ready', resolve).once('error', (err) => reject(unreachable(`${what} via ${jump.host}`, err.message)));
    client.connect({ host: jump.host, port: jump.port, username: jump.user, privateKey: readFileSync(jump.private_key_path, 'utf8'), readyTimeout: 10_000 });
  });
  return new Promise<Duplex>((resolve, reject) => {
    client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
      if (err) { client.end(); return reject(unreachable(`${what} via ${jump.host}`, err.message)); }
      // The jump connection lives exactly as long as the stream.
      stream.once('close', () => client.end());
      resolve(stream);
    });
  });
}
