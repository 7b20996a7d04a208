/**
 * A throwaway OpenSSH server on 127.0.0.1 for the tests: its own host key, config and
 * authorized_keys in a temp dir, a free port, `UsePAM no`, SFTP, logging in as root (the tests run
 * as root; sshd refuses to start otherwise). Needs the Debian package openssh-server.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort, waitPort } from './ports.ts';

export interface TestSshd {
  port: number;
  user: string;
  dir: string;
  /** The client's private key (OpenSSH format) and its host key's SHA-256 fingerprint. */
  privateKey: string;
  hostKeySha256: string;
  stop(): Promise<void>;
}

export async function startSshd(): Promise<TestSshd> {
  if (process.getuid?.() !== 0) throw new Error('the SSH tests need root (sshd runs as root with its own config)');
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-macos-sshd-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'vmhub-macos-test', '-f', join(dir, 'client_key')]);
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
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(err as Error).message}: ${stderr.trim()}`);
  }
  return {
    port, user: userInfo().username, dir,
    privateKey: readFileSync(join(dir, 'client_key'), 'utf8'),
    hostKeySha256: /SHA256:([A-Za-z0-9+/]+)/.exec(fp)![1]!,
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
