/**
 * A cloud-init NoCloud seed for one lease: an ISO 9660 image with the volume label `cidata`
 * holding `meta-data` (instance-id = the lease's identity, local-hostname) and `user-data` (a
 * `#cloud-config` giving the lease's user its per-lease public SSH key in
 * `users[].ssh_authorized_keys`, no password logins). Made with Debian's genisoimage (package
 * genisoimage; works offline), attached to the VM as a read-only virtio disk (qemu-argv.ts), and
 * removed with the lease's state directory. Only the public half of the key is in it.
 *
 * The seed is what cloud-init's NoCloud datasource reads, so a real cloud-init image (a Debian
 * cloud image) consumes it unchanged; the tiny-console-agent golden reads it with a minimal
 * reader of its own (tiny-console-ssh.ts), which understands exactly this block-style layout.
 */
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { VmhubError } from '@vmhub/core';

const SOURCE = 'provider-qemu';

/** The volume label cloud-init's NoCloud datasource looks for. */
export const SEED_LABEL = 'cidata';

export interface SeedInput {
  /** instance-id: the lease's identity (a new id makes cloud-init run its per-instance modules). */
  instanceId: string;
  /** The guest user the keys are for (created by cloud-init if the image lacks it). */
  user: string;
  /** OpenSSH public key lines (`ssh-ed25519 AAAA… comment`). */
  authorizedKeys: string[];
  /** local-hostname; default derived from instanceId. */
  hostname?: string;
}

/** A DNS label from the identity: lower case, [a-z0-9-], at most 63 characters. */
export function hostnameFor(identity: string): string {
  const label = identity.toLowerCase().replace(/[^a-z0-9-]+/g, '-').slice(0, 63).replace(/^-+|-+$/g, '');
  return label || 'vmhub';
}

/** A YAML double-quoted scalar (JSON's string syntax is valid YAML). */
const q = (s: string): string => JSON.stringify(s);

function checkLine(what: string, value: string): void {
  if (/[\r\n]/.test(value) || value.length === 0) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] NoCloud seed: ${what} must be one non-empty line`, { source: SOURCE });
}

export function metaData(input: SeedInput): string {
  checkLine('instance-id', input.instanceId);
  return `instance-id: ${q(input.instanceId)}\nlocal-hostname: ${q(input.hostname ?? hostnameFor(input.instanceId))}\n`;
}

export function userData(input: SeedInput): string {
  checkLine('user', input.user);
  if (input.authorizedKeys.length === 0) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] NoCloud seed: no authorized key for ${input.user}`, { source: SOURCE });
  for (const k of input.authorizedKeys) checkLine('an authorized key', k);
  return [
    '#cloud-config',
    `# vmhub: the lease's own SSH key for ${input.user}; no password logins`,
    'users:',
    `  - name: ${q(input.user)}`,
    '    lock_passwd: true',
    '    ssh_authorized_keys:',
    ...input.authorizedKeys.map((k) => `      - ${q(k.trim())}`),
    'ssh_pwauth: false',
    '',
  ].join('\n');
}

/**
 * Write the seed image to `path` (mode 0600). `genisoimage` is the binary to run (default from
 * PATH). A missing genisoimage is PROVISION_FAILED naming the Debian package.
 */
export async function writeNoCloudSeed(path: string, input: SeedInput, genisoimage = 'genisoimage'): Promise<void> {
  const files = `${path}.d`;
  await rm(files, { recursive: true, force: true });
  await mkdir(files, { mode: 0o700 });
  try {
    await writeFile(join(files, 'meta-data'), metaData(input));
    await writeFile(join(files, 'user-data'), userData(input));
    // -rational-rock: Rock Ridge names with sane modes/owners; -joliet for Windows cloudbase-init.
    await execa(genisoimage, ['-quiet', '-output', path, '-volid', SEED_LABEL, '-joliet', '-rational-rock', join(files, 'user-data'), join(files, 'meta-data')], { timeout: 30_000 }).catch((err: Error & { code?: string; stderr?: string }) => {
      const missing = err.code === 'ENOENT' || /ENOENT/.test(err.message) ? `${genisoimage} not found: \`apt-get install -y genisoimage\`` : (err.stderr || err.message).trim();
      throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] could not write the NoCloud seed ${path}: ${missing}`, { source: SOURCE, cause: err });
    });
    await chmod(path, 0o600);
  } finally {
    await rm(files, { recursive: true, force: true });
  }
}
