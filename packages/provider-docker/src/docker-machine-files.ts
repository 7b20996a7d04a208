/**
 * The files that make a container one particular machine, which a snapshot's image must not hand
 * on: `/etc/machine-id` and, in a golden with sshd (image label `vmhub.ssh.port`), the SSH host
 * key pair `/etc/ssh/ssh_host_ed25519_key{,.pub}` (the session makes it at a container's first
 * start, so a committed image holds the snapshot source's). Written into a container created from
 * a snapshot image between its create and its start (CreateExtras.beforeStart), as root, through
 * the archive API:
 *   fork    — all new: a random machine-id, a new host key pair (made here, never logged), and a
 *             hostname of its own (forkHostname). Its authorized key is the fork's own too: the
 *             golden's session overwrites ~/.ssh/authorized_keys from VMHUB_SSH_AUTHORIZED_KEY at
 *             every start (lib/session.sh), so the source lease's key does not survive into it.
 *   restore — the replaced container's own files, read from it before it is removed (the lease
 *             keeps its machine-id and the host key its SSH clients pinned); a file it did not
 *             have (a machine made from the golden has no machine-id) is made new, never the
 *             snapshot source's.
 */
import { randomBytes } from 'node:crypto';
import { generateLeaseKeyPair } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { readFirstEntry, writeTar, type TarEntry } from '@vmhub/core';

export const MACHINE_ID = 'etc/machine-id';
export const HOST_KEY = 'etc/ssh/ssh_host_ed25519_key';
export const HOST_KEY_PUB = `${HOST_KEY}.pub`;

/** A machine's own files, by path under `/` (no leading slash). */
export type MachineFiles = Map<string, { data: Buffer; mode: number }>;

/** A fork's hostname: `vmhub-` and the first 12 hex digits of its lease id (a DNS label). */
export function forkHostname(leaseId: string): string {
  const hex = leaseId.replace(/[^0-9a-f]/gi, '').toLowerCase().slice(0, 12);
  return `vmhub-${hex || randomBytes(6).toString('hex')}`;
}

/** New files for a machine: a machine-id, and a host key pair when `sshHostKey`. */
export function freshMachineFiles(sshHostKey: boolean): MachineFiles {
  const files: MachineFiles = new Map([[MACHINE_ID, { data: Buffer.from(`${randomBytes(16).toString('hex')}\n`), mode: 0o444 }]]);
  if (sshHostKey) {
    const key = generateLeaseKeyPair('');
    files.set(HOST_KEY, { data: Buffer.from(key.privateKey), mode: 0o600 });
    files.set(HOST_KEY_PUB, { data: Buffer.from(`${key.publicKey.trimEnd()}\n`), mode: 0o644 });
  }
  return files;
}

/** One regular file of a container (GET archive), or undefined when it has none there. */
async function readContainerFile(docker: DockerClient, containerId: string, path: string): Promise<{ data: Buffer; mode: number } | undefined> {
  const res = await docker.raw('GET', `/containers/${containerId}/archive`, { query: { path: `/${path}` } });
  if (res.status === 404) return undefined;
  if (res.status >= 400) throw docker.httpError('GET', `/containers/<id>/archive?path=/${path}`, res.status, res.body);
  const entry = readFirstEntry(res.body);
  return entry && entry.header.type === '0' ? { data: Buffer.from(entry.data), mode: entry.header.mode & 0o7777 } : undefined;
}

/**
 * The files a restore carries from the container it replaces: its own where it has them, new
 * ones where it has not (the host key pair only when `sshHostKey`, and only as a pair).
 */
export async function carriedMachineFiles(docker: DockerClient, containerId: string, sshHostKey: boolean): Promise<MachineFiles> {
  const fresh = freshMachineFiles(sshHostKey);
  const out: MachineFiles = new Map();
  const [id, key, pub] = await Promise.all([MACHINE_ID, ...(sshHostKey ? [HOST_KEY, HOST_KEY_PUB] : [])].map((p) => readContainerFile(docker, containerId, p)));
  out.set(MACHINE_ID, id && id.data.length > 0 ? id : fresh.get(MACHINE_ID)!);
  if (sshHostKey) {
    const pair = key && pub && key.data.length > 0 ? [key, pub] : [fresh.get(HOST_KEY)!, fresh.get(HOST_KEY_PUB)!];
    out.set(HOST_KEY, pair[0]!);
    out.set(HOST_KEY_PUB, pair[1]!);
  }
  return out;
}

/** Write `files` into a created (not yet started) container, as root. */
export async function putMachineFiles(docker: DockerClient, containerId: string, files: MachineFiles, signal?: AbortSignal): Promise<void> {
  const entries: TarEntry[] = [...files].map(([name, f]) => ({ name, data: f.data, mode: f.mode, uid: 0, gid: 0, uname: 'root', gname: 'root' }));
  const res = await docker.raw('PUT', `/containers/${containerId}/archive`, { query: { path: '/' }, body: writeTar(entries), headers: { 'Content-Type': 'application/x-tar' }, signal });
  if (res.status >= 400) throw docker.httpError('PUT', '/containers/<id>/archive?path=/', res.status, res.body);
}
