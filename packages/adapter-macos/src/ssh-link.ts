/**
 * The lease's SSH connection (ssh2): opened lazily on the first exec or file call over a stream
 * from `lease.connect(ssh_port)`, shared by every call of the session, reopened if it drops, and
 * closed in dispose(). The guest's host key is pinned on first use (or required to match
 * ssh_host_key_sha256) and the pin outlives a reconnect, so a swapped machine is refused.
 */
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import ssh2, { type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { DOCS, macError } from './errors.ts';
import { sshAuth, type MacosOptions } from './options.ts';

const { Client } = ssh2;
export type SshClient = InstanceType<typeof Client>;

export class SshLink {
  readonly #options: MacosOptions;
  readonly #connect: (port: number) => Promise<Duplex>;
  readonly #secret: (name: string) => Promise<string | undefined>;
  #client?: Promise<SshClient>;
  #sftp?: Promise<SFTPWrapper>;
  #pin?: string;
  #closed = false;

  constructor(options: MacosOptions, connect: (port: number) => Promise<Duplex>, secret: (name: string) => Promise<string | undefined> = async () => undefined) {
    this.#secret = secret;
    this.#options = options;
    this.#connect = connect;
    const want = options.ssh_host_key_sha256;
    if (want) this.#pin = want.replace(/^SHA256:/, '').replace(/=$/, '');
  }

  /** The connected client; a failed connect is forgotten so the next call retries. */
  client(): Promise<SshClient> {
    if (this.#closed) return Promise.reject(macError('LEASE_EXPIRED', 'the SSH connection of this lease was closed'));
    if (!this.#client) {
      const opening = this.#open();
      this.#client = opening;
      opening.then((c) => {
        const forget = () => { if (this.#client === opening) { this.#client = undefined; this.#sftp = undefined; } };
        c.once('close', forget);
        c.once('end', forget);
      }, () => { if (this.#client === opening) this.#client = undefined; });
    }
    return this.#client;
  }

  sftp(): Promise<SFTPWrapper> {
    if (!this.#sftp) {
      const opening = this.client().then((c) => new Promise<SFTPWrapper>((resolve, reject) => {
        c.sftp((err, sftp) => (err ? reject(macError('CAPABILITY_UNAVAILABLE', `the guest's sshd refused the SFTP subsystem (${err.message}): enable Remote Login with SFTP, or the Subsystem sftp line in sshd_config (${DOCS})`, { cause: err })) : resolve(sftp)));
      }));
      this.#sftp = opening;
      opening.then((s) => s.once('close', () => { if (this.#sftp === opening) this.#sftp = undefined; }), () => { if (this.#sftp === opening) this.#sftp = undefined; });
    }
    return this.#sftp;
  }

  async #open(): Promise<SshClient> {
    const o = this.#options;
    // The lease's own password (made by the provider at create) wins over the host's credentials.
    const leasePassword = o.ssh_password_secret ? await this.#secret(o.ssh_password_secret) : undefined;
    const auth = leasePassword !== undefined ? { password: leasePassword } : sshAuth(o);
    let sock: Duplex;
    try {
      sock = await this.#connect(o.ssh_port);
    } catch (err) {
      throw macError('CAPABILITY_UNAVAILABLE', `cannot reach the guest's sshd on port ${o.ssh_port}: ${(err as Error).message}. Turn on Remote Login (System Settings → General → Sharing) in the guest (${DOCS})`, { cause: err });
    }
    let seen: string | undefined;
    const config: ConnectConfig = {
      sock,
      username: o.ssh_user,
      ...auth,
      readyTimeout: o.connect_timeout_ms,
      keepaliveInterval: 15_000,
      hostVerifier: (key: Buffer) => {
        seen = createHash('sha256').update(key).digest('base64').replace(/=+$/, '');
        return this.#pin === undefined || this.#pin === seen;
      },
    };
    const client = await new Promise<SshClient>((resolve, reject) => {
      const c = new Client();
      c.once('ready', () => { c.removeAllListeners('error'); c.on('error', () => { /* the next call reconnects */ }); resolve(c); });
      c.once('error', (err: Error & { level?: string }) => {
        c.end();
        sock.destroy();
        if (seen && this.#pin && seen !== this.#pin) {
          reject(macError('POLICY_DENIED', `the guest's SSH host key (SHA256:${seen}) is not the one this lease pinned (SHA256:${this.#pin}): the machine behind the lease changed; release the lease`));
        } else if (err.level === 'client-authentication') {
          reject(macError('CAPABILITY_UNAVAILABLE', `the guest's sshd refused user "${o.ssh_user}" with the configured ${auth.privateKey ? 'key' : 'password'}: authorize the lease's public key in ~${o.ssh_user}/.ssh/authorized_keys (${DOCS})`, { cause: err }));
        } else {
          reject(macError('INTERNAL', `SSH to the guest (user ${o.ssh_user}, port ${o.ssh_port}) failed: ${err.message}`, { cause: err }));
        }
      });
      try {
        c.connect(config);
      } catch (err) {
        sock.destroy();
        reject(macError('CAPABILITY_UNAVAILABLE', `the configured SSH private key cannot be used: ${(err as Error).message} (an OpenSSH or PEM key without a passphrase is needed) (${DOCS})`, { cause: err }));
      }
    });
    if (this.#pin === undefined) this.#pin = seen;
    return client;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#client;
    this.#client = undefined;
    this.#sftp = undefined;
    const c = await pending?.catch(() => undefined);
    c?.end();
  }
}
