/**
 * A throwaway OpenSSH server on 127.0.0.1 for tests: its own host key, config and
 * authorized_keys in a temp dir, a free port, `UsePAM no`, SFTP, logging in as the current user
 * (root: sshd refuses to run otherwise). A client key pair is made and authorized; more keys can
 * be authorized with `authorize()`. Needs the Debian package openssh-server.
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort, waitPort } from './ports.ts';
import { tempDir } from './temp.ts';

export interface TestSshd {
  host: string;
  port: number;
  user: string;
  /** The server's directory (config, keys, pid file); removed by stop(). */
  dir: string;
  /** The authorized client key (OpenSSH private key format). */
  privateKey: string;
  /** The host key's SHA-256 fingerprint (base64, without the `SHA256:` prefix). */
  hostKeySha256: string;
  /** Authorize one more public key (an authorized_keys line). */
  authorize(publicKey: string): void;
  /** Stop sshd (SIGTERM, SIGKILL after 3 s) and remove its directory. */
  stop(): Promise<void>;
}

export async function startSshd(): Promise<TestSshd> {
  if (process.getuid?.() !== 0) throw new Error('the SSH tests need root (sshd runs as root with its own config)');
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const tmp = tempDir('vmhub-sshd-');
  const dir = tmp.path;
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'vmhub-test', '-f', join(dir, 'client_key')]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')), { mode: 0o600 });
  const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'host_key.pub')]).toString();
  const port = await freePort();
  writeFileSync(join(dir, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host_key')}`, `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, 'PubkeyAuthentication yes', 'PasswordAuthentication no',
    'KbdInteractiveAuthentication no', 'UsePAM no', 'StrictModes no', 'PermitRootLogin prohibit-password',
    'Subsystem sftp internal-sftp', 'MaxSessions 64', 'MaxStartups 100:30:200', 'LogLevel ERROR', '',
  ].join('\n'));
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  try {
    await waitPort(port, 10_000, () => child.exitCode !== null);
  } catch (err) {
    child.kill('SIGKILL');
    tmp.cleanup();
    throw new Error(`sshd: ${(err as Error).message}: ${stderr.trim()}`);
  }
  return {
    host: '127.0.0.1', port, user: userInfo().username, dir,
    privateKey: readFileSync(join(dir, 'client_key'), 'utf8'),
    hostKeySha256: /SHA256:([A-Za-z0-9+/]+)/.exec(fp)![1]!,
    authorize(publicKey: string) {
      appendFileSync(join(dir, 'authorized_keys'), `${publicKey.trim()}\n`);
    },
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      tmp.cleanup();
    },
  };
}
