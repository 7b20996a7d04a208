/**
 * Per-lease SSH for templates with `provider_options.ssh` ({user, port = 22}):
 *   - create: a key pair (core's generateLeaseKeyPair) kept in rt.secrets — one 0600 file per
 *     lease under `<instance state dir, else state_dir>/provider-qemu/keys` (qemu-runtime.ts),
 *     so a restarted server, the reaper and
 *     `vmhub-server leases ssh` find it — and a NoCloud seed with the public half for the user in
 *     the lease's state directory (`seed.iso`, nocloud-seed.ts), attached read-only (qemu-argv.ts);
 *     the ssh port joins the forwarded guest ports (hostfwd on 127.0.0.1, like forward_ports);
 *   - ready: the `ssh` stage waits until the forwarded port answers with an SSH banner;
 *   - sshAccess / pinSshHostKey: the user, private key, guest port and pinned host key (undefined
 *     once the machine's state record is gone, whoever destroyed it);
 *   - destroy (the server's or the reaper's): the key file is dropped; the seed goes with the
 *     state directory.
 * Each lease cold-boots from its own seed (savedStateOff): a key of one lease is never installed
 * in another lease's guest, and every guest makes its own host key at boot.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { generateLeaseKeyPair, type MachineRef, type SshAccess, type TemplateConfig } from '@vmhub/core';
import { templateOptions, type QemuTemplateOptions } from './options.ts';
import { writeNoCloudSeed } from './nocloud-seed.ts';
import { recordFor, type QemuRuntime } from './qemu-runtime.ts';
import { FILES } from './state-dir.ts';

export const DEFAULT_SSH_PORT = 22;

/** The template's ssh settings with the port filled in, or undefined. */
export function sshOf(t: QemuTemplateOptions): { user: string; port: number } | undefined {
  return t.ssh ? { user: t.ssh.user, port: t.ssh.port ?? DEFAULT_SSH_PORT } : undefined;
}

/** Every guest port the lease forwards: forward_ports plus the ssh port. */
export function guestPorts(t: QemuTemplateOptions): number[] {
  const ports = [...(t.forward_ports ?? [])];
  const ssh = sshOf(t);
  if (ssh && !ports.includes(ssh.port)) ports.push(ssh.port);
  return ports;
}

/**
 * Make the lease's key pair and seed in `dir` (the fresh state directory); returns the seed's
 * path, or undefined when the template has no ssh. On failure the key is dropped again.
 */
export async function prepareLeaseSsh(rt: QemuRuntime, l: { identity: string; leaseId: string; dir: string; t: QemuTemplateOptions }): Promise<string | undefined> {
  const ssh = sshOf(l.t);
  if (!ssh) return undefined;
  const keys = generateLeaseKeyPair(`vmhub-${l.leaseId}`);
  rt.secrets.put(l.identity, keys);
  const seed = join(l.dir, FILES.seed);
  try {
    await writeNoCloudSeed(seed, { instanceId: l.identity, user: ssh.user, authorizedKeys: [keys.publicKey] });
  } catch (err) {
    rt.secrets.drop(l.identity);
    throw err;
  }
  return seed;
}

export async function sshAccess(rt: QemuRuntime, machine: MachineRef, template: TemplateConfig): Promise<SshAccess | undefined> {
  const ssh = sshOf(templateOptions(template.provider_options));
  // The machine's record first: another process (the reaper) may have destroyed it and dropped the
  // key file while this process still holds the key in memory.
  if (!ssh || !(await recordFor(rt, machine)).record) return undefined;
  return rt.secrets.sshAccess(machine.identity, ssh);
}

export async function pinSshHostKey(rt: QemuRuntime, machine: MachineRef, fingerprint: string): Promise<void> {
  rt.secrets.pinHostKey(machine.identity, fingerprint);
}

/**
 * The first line a server on 127.0.0.1:`port` sends, within `ms` (QEMU's hostfwd accepts at once
 * and then closes when nothing listens in the guest: that answers undefined).
 */
export function bannerAt(port: number, ms = 3_000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    let got = '';
    const done = (v: string | undefined): void => { clearTimeout(timer); sock.destroy(); resolve(v); };
    const timer = setTimeout(() => done(undefined), ms);
    sock.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      const nl = got.indexOf('\n');
      if (nl >= 0) done(got.slice(0, nl).trim());
    });
    sock.on('error', () => done(undefined));
    sock.on('close', () => done(undefined));
  });
}
