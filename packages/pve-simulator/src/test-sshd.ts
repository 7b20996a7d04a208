/**
 * Test support: the guest behind a simulated VM. A throwaway OpenSSH server on 127.0.0.1 for tests: its own host key, config and
 * authorized_keys, a random port, `UsePAM no`, logging in as the current (root) user.
 * Needs the Debian package openssh-server and root (sshd refuses to run otherwise).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface TestSshd {
  host: string;
  port: number;
  user: string;
  dir: string;
  authorize(publicKey: string): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitListening(port: number, child: ChildProcess, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1');
      sock.once('connect', () => { sock.destroy(); resolve(true); });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd did not listen on ${port} within ${deadlineMs} ms`);
}

export async function startTestSshd(): Promise<TestSshd> {
  if (process.getuid?.() !== 0) throw new Error('the SSH tests need root (sshd runs as root with its own config)');
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-sshd-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_ed25519')]);
  writeFileSync(join(dir, 'authorized_keys'), '', { mode: 0o600 });
  const port = await freePort();
  writeFileSync(join(dir, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host_ed25519')}`, `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, 'PubkeyAuthentication yes', 'PasswordAuthentication no',
    'KbdInteractiveAuthentication no', 'UsePAM no', 'StrictModes no', 'PermitRootLogin prohibit-password',
    'Subsystem sftp internal-sftp', 'MaxSessions 64', 'MaxStartups 100:30:200', 'LogLevel ERROR', '',
  ].join('\n'));
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  try {
    await waitListening(port, child, 10_000);
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(err as Error).message}: ${stderr.trim()}`);
  }
  return {
    host: '127.0.0.1', port, user: userInfo().username, dir,
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
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
