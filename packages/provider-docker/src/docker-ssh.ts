/**
 * Per-lease SSH keys for containers whose golden runs sshd (manifest "ssh", image label
 * `vmhub.ssh.port`; debian-x11 has it): how `vmhub-server leases ssh` gets in.
 *   create  — the image's label is read; with it, a key pair is made for the lease (or the one
 *             already held for its identity is reused: a retried create adopts its container) and
 *             its public half goes into the container's environment (VMHUB_SSH_AUTHORIZED_KEY, with
 *             VMHUB_SSH_USER, the lease's user): the golden's session writes it as that user's only
 *             authorized key before it starts sshd. The port goes into MachineRef.details.ssh_port.
 *   hold    — the private half lives in LeaseSecrets: this process's memory and, given a state
 *             directory (ProviderContext.stateDir), one 0600 file under
 *             `<stateDir>/provider-docker/keys`, so the server, the reaper and the leases CLI all
 *             find it. Never in the container, the image, the store or a log.
 *   access  — sshAccess: user, private key, port, and the host key pinned at the first connection.
 *   destroy — the provider drops it with the container (also when the reaper destroys).
 * Without the label (any other golden) nothing is made and sshAccess is undefined.
 */
import { generateLeaseKeyPair, LeaseSecrets, type CreateRequest, type MachineRef, type SshAccess } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { SSH_PORT_LABEL } from './golden-manifest.ts';

/** The guest port sshd listens on, from an image's inspect body (label `vmhub.ssh.port`), or undefined (no sshd). */
export function sshPortOfImage(body: Buffer): number | undefined {
  const label = (JSON.parse(body.toString('utf8')) as { Config?: { Labels?: Record<string, string> | null } }).Config?.Labels?.[SSH_PORT_LABEL];
  const port = Number(label);
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? port : undefined;
}

/** The guest port the image's sshd listens on (sshPortOfImage), or undefined (no sshd, no such image). */
export async function imageSshPort(docker: DockerClient, image: string, signal?: AbortSignal): Promise<number | undefined> {
  const res = await docker.raw('GET', `/images/${encodeURIComponent(image)}/json`, { signal });
  // A missing image is create's to report (with how to build it); here it just has no sshd.
  if (res.status === 404) return undefined;
  if (res.status >= 400) throw docker.httpError('GET', `/images/${image}/json`, res.status, res.body);
  return sshPortOfImage(res.body);
}

/**
 * imageSshPort without a second round trip per lease: core asks availability() right before every
 * create, and availability has just read the golden's inspect body (`seen`). What it saw is used
 * for `ttlMs` (a tag's labels change only when the image is rebuilt under it); after that, or for
 * an image availability was not asked about, the image is inspected again.
 */
export class ImageSshPorts {
  readonly #seen = new Map<string, { port: number | undefined; at: number }>();
  readonly #ttlMs: number;

  constructor(ttlMs = 60_000) {
    this.#ttlMs = ttlMs;
  }

  seen(image: string, body: Buffer): void {
    try {
      this.#seen.set(image, { port: sshPortOfImage(body), at: Date.now() });
    } catch {
      this.#seen.delete(image); // not JSON: create asks again
    }
  }

  async get(docker: DockerClient, image: string, signal?: AbortSignal): Promise<number | undefined> {
    const hit = this.#seen.get(image);
    if (hit && Date.now() - hit.at < this.#ttlMs) return hit.port;
    return imageSshPort(docker, image, signal);
  }
}

/** What create adds to the container for a lease whose image runs sshd. */
export interface LeaseSshSetup {
  /** Container environment: the public half and the user it is for. */
  env: string[];
  /** MachineRef.details: the guest port sshd listens on. */
  details: { ssh_port: number };
}

/**
 * The key pair of a lease whose image runs sshd, held in `secrets` (made now, or reused for a
 * retried create); undefined when the image has no sshd.
 */
export async function leaseSshSetup(docker: DockerClient, ports: ImageSshPorts, secrets: LeaseSecrets, request: CreateRequest, user: string): Promise<LeaseSshSetup | undefined> {
  const port = await ports.get(docker, request.template.golden, request.signal);
  if (port === undefined) return undefined;
  let keys = secrets.get(request.identity);
  if (!keys) {
    keys = generateLeaseKeyPair(`vmhub-${request.lease_id}`);
    secrets.put(request.identity, keys);
  }
  return { env: [`VMHUB_SSH_AUTHORIZED_KEY=${keys.publicKey}`, `VMHUB_SSH_USER=${user}`], details: { ssh_port: port } };
}

/** Provider.sshAccess: undefined for a machine without sshd (no ssh_port) or whose key this host does not hold. */
export function sshAccessOf(secrets: LeaseSecrets, machine: MachineRef, user: string): SshAccess | undefined {
  const port = machine.details?.ssh_port;
  return typeof port === 'number' ? secrets.sshAccess(machine.identity, { user, port }) : undefined;
}
