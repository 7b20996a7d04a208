/**
 * Test fixture beside @vmhub/test-kit's real adbd and private adb server: what runs on this host
 * under adbd (its processes), and commands run as another local user.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Processes on this host whose command line contains `needle` (adbd runs them here). */
export function processesWith(needle: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(needle) && !l.includes('ps -eo')).map((l) => Number.parseInt(l.trim(), 10));
}

/** Why a test cannot run a command as another local user here, or undefined when it can. */
export function otherUserMissing(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to run commands as nobody (setpriv)';
  if (!existsSync('/usr/bin/setpriv')) return 'setpriv missing (util-linux)';
  return undefined;
}

/**
 * Run `argv` as the local user `nobody` (no groups), HOME=`home`; never throws: the exit status,
 * stdout and stderr come back for the test to judge.
 */
export function runAsNobody(argv: string[], home: string, timeoutMs = 30_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', ...argv], { env: { PATH: process.env.PATH, HOME: home }, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}
